// `_gillab`: the one native module. Debian's /usr/bin/python3 runs the kernel
// from it (gillab/kernel/launch.py calls launch), and a stock ipykernel gets the
// same magics from it with `%load_ext gillab`.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "interpreter.hpp"
#include "launch.hpp"
#include "framework/python_module.hpp"
#include "shell_setup.hpp"

PYBIND11_MODULE(_gillab, m)
{
    namespace py = pybind11;
    m.doc() = "gillab's native core: the kernel, and magics whose parsing, native instruments, "
              "statistics and rendering are C++ (their timed loops are Python runners)";
    m.attr("version") = gillab::version;
    m.def("launch", &gillab::launch, py::arg("connection_file"),
          "Serve a Jupyter connection file as the gillab kernel until it is shut down; never returns.");
    gillab::bind_kernel_hooks(m);
    gillab::bind_magics(m);
}
