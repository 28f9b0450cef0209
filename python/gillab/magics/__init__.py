"""The native magics' Python helpers, each imported by the C++ part it serves: the cell written as
a module (cell_modules), the chart's PNG (charts), what %gilinfo reports (concurrency_facts),
the scope every magic runs in, which puts back what its jobs changed of the kernel (state_guard,
over kernel_state's list of the interpreter state), and the place the GIL sampler saw, as a
student reads it (code_places), and each magic's manual in the reader's language (manuals). They
run in the kernel only; the loops that measure (and also run in child interpreters) are in
gillab.runners."""
