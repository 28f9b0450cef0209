"""A throwaway copy of the machine's minimal Debian 12 root (tools/build-debian-root), packages
installed into it with its own apt, and commands run in it as a student would: under bubblewrap,
as uid 1000 of group 100 with a home of her own, unprivileged on this machine too."""

import glob
import os
import shutil
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("GILLAB_CACHE", "/var/cache/gillab")
BASE = os.path.join(CACHE, "debian-bookworm")
# apt's downloads, kept between runs so a machine fetches each package once.
ARCHIVES = os.path.join(BASE, "archives")
STUDENT_UID, STUDENT_GID, STUDENT_HOME = 1000, 100, "/home/student"
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
       "DEBIAN_FRONTEND": "noninteractive"}


def make_base():
    """The cached base root, made now if this machine has none; its path or the tool's failure."""
    run = subprocess.run([os.path.join(REPO, "tools", "build-debian-root")], capture_output=True, text=True,
                         env=dict(os.environ, GILLAB_CACHE=CACHE))
    if run.returncode != 0:
        raise RuntimeError(f"tools/build-debian-root failed:\n{run.stdout}{run.stderr}")
    return os.path.join(BASE, "root")


def student_command(root, *command, home=STUDENT_HOME, env=None, keep_env=False, share_net=False):
    """argv that runs command in the file system `root` as uid 1000 under bubblewrap: no
    capability, the root read-only, her home and /tmp writable; bubblewrap runs unprivileged here
    too (setpriv). The environment is a plain one plus env, or the caller's with keep_env (a
    hub's JUPYTERHUB_* variables); share_net keeps this machine's network (a hub's proxy must
    reach her server), otherwise she has a loopback of her own."""
    argv = ["setpriv", f"--reuid={STUDENT_UID}", f"--regid={STUDENT_GID}", "--clear-groups",
            "bwrap", "--ro-bind", root, "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--bind", root + home, home, "--unshare-all", "--die-with-parent", "--chdir", home]
    if share_net:
        argv.append("--share-net")
    if not keep_env:
        argv.append("--clearenv")
        for name, value in {**ENV, "HOME": home, "USER": "student", **(env or {})}.items():
            argv += ["--setenv", name, value]
    return [*argv, *command]


def as_student(root, *command, input=None, timeout=600, **options):
    return subprocess.run(student_command(root, *command, **options), capture_output=True, text=True,
                          input=input, timeout=timeout)


class DebianRoot:
    """A copy of the base root under a temp folder of the build directory (readable by uid 1000)."""

    def __init__(self, base, parent):
        os.makedirs(parent, exist_ok=True)
        self.folder = tempfile.mkdtemp(prefix="debian-root-", dir=parent)
        os.chmod(self.folder, 0o755)
        self.path = os.path.join(self.folder, "root")
        subprocess.run(["cp", "-a", "--reflink=auto", base, self.path], check=True)

    def chroot(self, *command, check=True, timeout=900):
        """A command as root inside the copy (apt, dpkg): chroot, as debootstrap's own steps are."""
        return subprocess.run(["chroot", self.path, *command], capture_output=True, text=True, env=ENV,
                              check=check, timeout=timeout)

    def apt_install(self, *packages):
        """apt-get install inside; a stale package list is refreshed once. Downloads are cached."""
        archives = os.path.join(self.path, "var", "cache", "apt", "archives")
        for deb in glob.glob(os.path.join(ARCHIVES, "*.deb")):
            shutil.copy2(deb, archives)
        install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]
        result = self.chroot(*install, check=False)
        if result.returncode != 0:
            self.chroot("apt-get", "update", "-q")
            result = self.chroot(*install, check=False)
        os.makedirs(ARCHIVES, exist_ok=True)
        for deb in glob.glob(os.path.join(archives, "*.deb")):
            if not os.path.exists(os.path.join(ARCHIVES, os.path.basename(deb))):
                shutil.copy2(deb, ARCHIVES)
        self.chroot("apt-get", "clean")
        if result.returncode != 0:
            raise RuntimeError(f"apt-get install {' '.join(packages)} failed:\n{result.stdout[-3000:]}{result.stderr}")
        return result

    def add_student(self):
        """Zero to JupyterHub's user: uid 1000, group 100 (users), a home of her own."""
        self.chroot("useradd", "--uid", str(STUDENT_UID), "--gid", str(STUDENT_GID), "--create-home",
                    "--home-dir", STUDENT_HOME, "--shell", "/bin/bash", "student")

    def as_student(self, *command, **options):
        return as_student(self.path, *command, **options)

    def remove(self):
        subprocess.run(["rm", "-rf", "--one-file-system", self.folder])  # tens of thousands of files: rm, not rmtree
