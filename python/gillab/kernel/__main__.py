"""`python3 -m gillab.kernel -f CONNECTION_FILE`, as the kernelspec starts the kernel."""

from gillab.kernel.launch import main

main()
