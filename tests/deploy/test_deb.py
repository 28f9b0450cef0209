"""The Debian package (`make deb`) as an instructor's hub gets it: installed with apt into a fresh
minimal Debian 12 root, used there by a student (uid 1000, under bubblewrap), removed without a trace.

GILLAB_DEB_CHECK=all makes `gillab-grade check` run on all six shipped lectures (several minutes);
by default it checks one."""

import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEB_DIR = os.path.join(REPO, "build-deb")
sys.path.insert(0, HERE)
from debian_root import STUDENT_HOME, DebianRoot, make_base  # noqa: E402

GILBENCH_CELL = ("%%gilbench --modes sequential,threads --workers 1,2 --jobs 2 --repeats 1 --warmup 0 -o r\n"
                 "def job(i):\n    return sum(range(20_000))\n")
CHECKED_LECTURE = "04-races-the-gil-is-not-thread-safety.ipynb"


def the_deb():
    debs = glob.glob(os.path.join(DEB_DIR, "gillab_*_amd64.deb"))
    if len(debs) != 1:
        pytest.fail(f"expected one gillab_<version>_amd64.deb in {DEB_DIR} (make deb), found {debs}")
    return debs[0]


def control_field(deb, name):
    return subprocess.run(["dpkg-deb", "--field", deb, name], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def installed():
    """(the root copy, the deb, the package's file list) once gillab is installed with apt."""
    if os.geteuid() != 0:
        pytest.skip("installing into a Debian root needs root (debootstrap, chroot)")
    deb = the_deb()
    root = DebianRoot(make_base(), os.path.join(REPO, "build", "deploy-test"))
    try:
        target = os.path.join(root.path, "tmp", os.path.basename(deb))
        subprocess.run(["cp", deb, target], check=True)
        root.apt_install("/tmp/" + os.path.basename(deb))
        os.remove(target)
        root.add_student()
        package_files = root.chroot("dpkg", "-L", "gillab").stdout.split()
        yield root, deb, package_files
    finally:
        root.remove()


def test_the_package_is_named_by_version_and_depends_on_debian_12_packages():
    deb = the_deb()
    assert os.path.basename(deb) == f"gillab_{control_field(deb, 'Version')}_amd64.deb"
    depends = control_field(deb, "Depends")
    for package in ("python3-xeus-python-shell", "python3-ipython", "python3-matplotlib", "bubblewrap",
                    "libxeus-python0", "libxeus6"):
        assert package in depends, depends


def test_the_package_puts_each_part_where_jupyter_and_the_shell_find_it(installed):
    root, _, files = installed
    for path in ("/usr/share/jupyter/kernels/gillab/kernel.json", "/usr/bin/gillab-grade", "/usr/bin/gillab",
                 "/usr/etc/jupyter/jupyter_server_config.d/gillab_lab.json",
                 "/usr/lib/gillab/python/gillab_lab.py", "/usr/share/gillab/lab/static/bundle.js",
                 "/usr/share/gillab/manuals/gilbench.txt",
                 "/usr/share/locale/ru/LC_MESSAGES/gillab-manuals.mo",
                 "/usr/lib/python3/dist-packages/gillab.pth"):
        assert path in files, path
    assert any(f.startswith("/usr/lib/gillab/python/_gillab") and f.endswith(".so") for f in files)
    for folder in ("notebooks", "lectures"):
        shipped = sorted(os.path.basename(f) for f in files
                         if f.startswith(f"/usr/share/gillab/{folder}/") and f.endswith(".ipynb"))
        assert shipped == sorted(os.listdir(os.path.join(REPO, "notebooks"))), folder
    kernelspec = json.loads(open(root.path + "/usr/share/jupyter/kernels/gillab/kernel.json").read())
    assert kernelspec["argv"][0] == "/usr/bin/python3"
    assert kernelspec["env"]["PYTHONPATH"] == "/usr/lib/gillab/python"


def test_a_student_runs_a_gilbench_cell_in_the_installed_kernel(installed):
    root, _, _ = installed
    cells = [GILBENCH_CELL, "print(sorted({row['mode'] for row in r.rows}), r.results_match)"]
    run = root.as_student("/usr/bin/python3", "-", "gillab", json.dumps(cells),
                          input=open(os.path.join(HERE, "kernel_session.py")).read(), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    session = json.loads(run.stdout)
    assert session["kernel_info"]["implementation"] == "gillab", session["kernel_info"]
    bench, printed = session["cells"]
    assert bench["reply"]["status"] == "ok", bench["reply"]
    assert any(o["msg_type"] in ("display_data", "execute_result") for o in bench["outputs"])
    assert printed["reply"]["status"] == "ok", printed
    text = "".join(o["content"].get("text", "") for o in printed["outputs"])
    assert text.strip() == "['sequential', 'threads'] True", text


def test_gillab_grade_check_passes_on_the_shipped_lectures(installed):
    root, _, _ = installed
    lectures = "*.ipynb" if os.environ.get("GILLAB_DEB_CHECK") == "all" else CHECKED_LECTURE
    folder = STUDENT_HOME + "/check"
    run = root.as_student("/bin/sh", "-c", f"mkdir -p {folder} && cp /usr/share/gillab/notebooks/{lectures} {folder}/ "
                          f"&& gillab-grade check {folder} --jobs 2", env={"GILLAB_QUICK": "1"}, timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert run.stdout.count(": ok") == (6 if lectures == "*.ipynb" else 1), run.stdout


def test_apt_remove_leaves_no_file_of_the_package(installed):
    root, _, files = installed
    # root importing the modules writes __pycache__ beside them, which dpkg does not own
    root.chroot("/usr/bin/python3", "-c", "import gillab.extension, gillab_grade.cli, gillab_lab")
    root.chroot("apt-get", "remove", "-y", "-q", "gillab")
    left = [f for f in files if os.path.lexists(root.path + f)]
    # folders other packages own too (/usr/share/locale, ...) stay, as they should
    shared = {f for f in left if os.path.isdir(root.path + f) and not os.path.islink(root.path + f)
              and root.chroot("dpkg", "-S", f, check=False).returncode == 0}
    assert sorted(set(left) - shared) == []
    for folder in ("/usr/lib/gillab", "/usr/share/gillab", "/usr/share/jupyter/kernels/gillab"):
        assert not os.path.lexists(root.path + folder), folder
