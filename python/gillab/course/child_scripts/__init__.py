"""Scripts lecture 6 runs under other interpreters (the free-threaded build among them): each
stands alone, imports nothing of gillab, and prints one JSON line. `children.run_json` runs them."""
