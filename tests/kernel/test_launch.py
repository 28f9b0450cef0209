"""The kernel runs inside Debian's own /usr/bin/python3 (`python3 -m gillab.kernel`, the
`_gillab` extension module): no libpython of its own, so student code runs at the
interpreter's full speed; the `gillab` command answers --version; a student's gillab.py in
the notebook's folder does not shadow the kernel."""

import os
import subprocess

from conftest import BUILD_DIR, Kernel


def test_the_kernel_process_is_debians_python3_and_maps_no_libpython(kernel):
    # An embedded libpython (built without the executable's PGO/LTO) is what made student code
    # slower; how fast a loop runs here beside a plain python3 is bench/pure_python_speed's figure.
    pid = kernel.eval("__import__('os').getpid()")
    assert pid == kernel.pid
    assert os.path.realpath(f"/proc/{pid}/exe") == os.path.realpath("/usr/bin/python3")
    with open(f"/proc/{pid}/maps") as f:
        libpythons = {line.split()[-1] for line in f if "libpython" in line}
    assert not libpythons, f"the kernel maps {sorted(libpythons)}"
    assert kernel.eval("__import__('_gillab').__file__").startswith(os.path.join(BUILD_DIR, "prefix"))


def test_the_gillab_command_prints_its_version():
    out = subprocess.run([os.path.join(BUILD_DIR, "prefix", "bin", "gillab"), "--version"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("gillab 0."), out.stdout


def test_the_gillab_command_without_a_connection_file_is_a_usage_error():
    out = subprocess.run([os.path.join(BUILD_DIR, "prefix", "bin", "gillab")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "connection file" in out.stderr and out.stderr.count("\n") <= 3, out.stderr


def test_a_students_gillab_py_in_the_notebook_folder_neither_stops_the_kernel_nor_hides_her_modules(tmp_path):
    (tmp_path / "gillab.py").write_text("raise SystemExit('the kernel imported the student gillab.py')\n")
    (tmp_path / "mymodule.py").write_text("ANSWER = 42\n")
    kernel = Kernel(cwd=str(tmp_path))
    try:
        assert kernel.eval("__import__('mymodule').ANSWER") == 42
        assert kernel.eval("__import__('gillab').__file__") != str(tmp_path / "gillab.py")
        result = kernel.execute("%%gilbench --modes sequential --jobs 1 --repeats 1 --warmup 0\nx = i\n")
        assert result.status == "ok", result.reply["content"]
    finally:
        kernel.shutdown()
