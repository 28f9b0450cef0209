"""Where a submission's kernel runs: in a bubblewrap sandbox, or unconfined.

`Bubblewrap` (Debian's `bwrap`, unprivileged namespaces) gives the kernel:
- its own network namespace holding only a loopback: the kernel and the
  grader talk over ZeroMQ `ipc` sockets in the sandbox's private folder, which
  the grader reaches through /proc/<pid>/root of the sandbox's first process;
- /usr, /etc and /sys read-only, plus read-only the kernel's installation and
  the interpreters its magics may run (the project's builds, pyenv's versions);
  nothing else of the host: no /home, no submissions folder, no instructor
  files, no other student's private folder;
- /sandbox (work/: the copy of the student's files, home/, run/: the sockets)
  and /tmp, each a tmpfs of a fixed size; the root and /dev read-only;
- its own PID namespace: when the kernel ends, everything it started ends too
  (daemons and double forks included);
- its own user namespace, as an unprivileged user (nobody when the grader is
  root: root ignores the process limit), where the limits on processes, file
  size, CPU time and address space are set: the process limit then counts only
  this sandbox's tasks.
`Unconfined` is the behaviour of --sandbox off: the kernel runs as the grader,
in a private folder, and its processes are found and killed afterwards.
"""

import json
import os
import resource
import selectors
import signal
import stat
import subprocess
import tarfile
import tempfile
import time

import jupyter_client
import psutil

from gillab.runners import process_tree

from . import processes

# The kernel's terminal output (bwrap's and the kernel's own diagnostics), in
# the private folder: removed with it unless the instructor keeps it.
KERNEL_LOG = "kernel.log"

BWRAP = "/usr/bin/bwrap"
SETPRIV = "/usr/bin/setpriv"
PRLIMIT = "/usr/bin/prlimit"
# Whom the sandbox runs as when the grader is root.
NOBODY = 65534

INSIDE = "/sandbox"
ARCHIVE = INSIDE + "/submission.tar"  # the host's copy, unpacked into work/ and removed
CONNECTION_FILE = INSIDE + "/kernel.json"
WORK = INSIDE + "/work"
HOME = INSIDE + "/home"
RUN = INSIDE + "/run"

# What of the grader's environment a sandboxed kernel sees; the rest (tokens,
# the hub's API key, paths into the grader's files) stays outside.
_KEPT_VARIABLES = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM")
_KEPT_PREFIXES = ("LC_", "GILLAB_", "PYTHON")
# Copied in, from the host's root: symlinks as symlinks (merged /usr), folders read-only.
_SYSTEM_TOPS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_SYSTEM_TREES = ("/usr", "/etc")


class KernelOutOfReach(RuntimeError):
    pass


def _is_under(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _sandbox_uid():
    return NOBODY if os.geteuid() == 0 else os.geteuid()


def _readable_by(path, uid):
    """Whether user uid (with no groups but its own) can read path: bwrap,
    running as that user, can bind only what it can reach."""
    if uid == os.geteuid():
        return os.access(path, os.R_OK)
    gid = uid  # nobody's group is nogroup, 65534 too

    def allows(info, user_bit, group_bit, other_bit):
        if info.st_uid == uid:
            return bool(info.st_mode & user_bit)
        if info.st_gid == gid:
            return bool(info.st_mode & group_bit)
        return bool(info.st_mode & other_bit)

    try:
        parts = os.path.realpath(path).split("/")[1:]
        folder = "/"
        for part in parts[:-1]:
            folder = os.path.join(folder, part)
            if not allows(os.stat(folder), stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH):
                return False
        return allows(os.stat(path), stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH)
    except OSError:
        return False


def _interpreter_folders(env):
    """The folders the magics look in for other CPythons (see magics/workers/interpreters.cpp)."""
    folders = [os.path.join(env.get("GILLAB_CACHE", "/var/cache/gillab"), "cpython-3.13")]
    pyenv = env.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")
    folders.append(os.path.join(pyenv, "versions"))
    # Out of reach (pyenv in a root grader's /root): the magics say the interpreter is missing.
    return [f for f in folders if os.path.isdir(f) and _readable_by(f, _sandbox_uid())], pyenv


def _limit_arguments(limits):
    args = [PRLIMIT, f"--nproc={limits.processes}", f"--fsize={limits.file_bytes}",
            # SIGXCPU at the limit; SIGKILL a second later if it is caught.
            f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}"]
    if limits.memory_bytes:
        args.append(f"--as={limits.memory_bytes}")
    return args + ["--"]


# Runs inside (bash: dash's redirections take one-digit descriptors only): waits for the
# grader's "go" on descriptor $1 (see _Handshake), then the private copy
# onto the tmpfs, then the kernel under its limits. SIGXFSZ ignored, as CPython itself does: a
# write past the file-size limit fails with EFBIG instead of killing the kernel.
_ENTRY = (f'read -r -u "$1" go && [ "$go" = go ] && tar -xf {ARCHIVE} -C {WORK} && rm {ARCHIVE} && '
          'cd "$2" && shift 2 && trap "" XFSZ && exec "$@"')
_GO = b"go\n"


class _Handshake:
    """Ties a sandbox's life to its grader's with no gap. bwrap's launcher binds itself to die
    with its parent (--die-with-parent) only after it has made the sandbox, and writes --info-fd
    just after: a grader dying before that would leave the sandbox running. So the kernel starts
    only on the grader's "go", sent once the info has arrived; a grader dead sooner closes the
    pipe, the sandbox reads end-of-file instead and exits. Use it as a context: what is still
    open at its end is closed."""

    def __enter__(self):
        self._info, self.info_fd = os.pipe()  # bwrap writes to info_fd
        self.go_fd, self._go = os.pipe()  # the sandbox reads go_fd
        self._open = {self._info, self.info_fd, self.go_fd, self._go}
        return self

    def __exit__(self, *_):
        for fd in self._open:
            os.close(fd)
        self._open.clear()

    def sandbox_fds(self):
        # The info's read end goes in too: a launcher whose grader died before it wrote would
        # otherwise die of SIGPIPE there, leaving its sandbox's first process waiting for it forever.
        return (self._info, self.info_fd, self.go_fd)

    def go(self, timeout):
        """After the launch: the sandbox's first process (from bwrap's info), the kernel let
        start. None when bwrap ended without saying (its log says why)."""
        self._close(self.info_fd, self.go_fd)
        child = _child_pid(self._info, timeout)
        try:
            if child is not None:
                os.write(self._go, _GO)
        except BrokenPipeError:
            child = None
        self._close(self._info, self._go)
        return child

    def _close(self, *fds):
        for fd in fds:
            os.close(fd)
            self._open.discard(fd)


def _child_pid(fd, timeout):
    """The "child-pid" of bwrap's --info-fd JSON, read as soon as it is whole; None if bwrap
    closes the pipe or stays silent first."""
    deadline, data = time.monotonic() + timeout, b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while selector.select(max(0.0, deadline - time.monotonic())):
            chunk = os.read(fd, 4096)
            if not chunk:
                return None
            data += chunk
            try:
                return int(json.loads(data)["child-pid"])
            except ValueError:
                continue  # not whole yet
            except (KeyError, TypeError):
                return None
    return None


def bwrap_arguments(archive_fd, connection_fd, info_fd, read_only, limits):
    """bwrap's options (before the command) for a sandbox that unpacks the tar
    archive read from archive_fd, reads its connection file from
    connection_fd, writes its info to info_fd and also sees the host paths
    read_only. The files come in as data, not as mounts: a root grader's
    private folder stays closed to the sandbox's user."""
    size = str(limits.disk_bytes)
    args = [BWRAP, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--info-fd", str(info_fd),
            "--hostname", "gillab-sandbox",
            # jupyter_client's parent pid means nothing in a PID namespace, where the parent is PID 1:
            # ipykernel would take that for its parent's death.
            "--unsetenv", "JPY_PARENT_PID"]
    for tree in _SYSTEM_TREES:
        args += ["--ro-bind", tree, tree]
    for top in _SYSTEM_TOPS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += ["--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev",
             "--size", size, "--tmpfs", "/dev/shm", "--size", size, "--tmpfs", "/tmp",
             "--size", size, "--tmpfs", INSIDE, "--dir", WORK, "--dir", HOME, "--dir", RUN,
             "--file", str(archive_fd), ARCHIVE, "--bind-data", str(connection_fd), CONNECTION_FILE]
    bound = list(_SYSTEM_TREES) + list(_SYSTEM_TOPS)
    for path in sorted(set(read_only)):
        if not _is_under(path, bound):
            args += ["--ro-bind-try", path, path]
            bound.append(path)
    return args + ["--chdir", INSIDE, "--remount-ro", "/dev", "--remount-ro", "/"]


def _sandbox_command(uid, files, handshake, read_only, limits, cwd, argv):
    """argv in a sandbox as user uid, started in cwd: (a root grader's drop to uid,) bwrap, the
    entry, the limits. files: the archive's and the connection file's descriptors."""
    return _run_as(uid) + bwrap_arguments(*files, handshake.info_fd, read_only, limits) + \
        ["/bin/bash", "-c", _ENTRY, "bash", str(handshake.go_fd), cwd] + _limit_arguments(limits) + argv


def _run_as(uid):
    """The prefix that drops a root grader to `uid` before bwrap starts."""
    if uid == os.geteuid():
        return []
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--"]


def probe(limits):
    """None when a sandbox can be made here, else why not (one line)."""
    if not os.path.exists(BWRAP):
        return "bwrap is not installed (Debian package bubblewrap)"
    try:
        with tempfile.TemporaryFile() as archive, tempfile.TemporaryFile() as connection, _Handshake() as handshake:
            tarfile.open(fileobj=archive, mode="w").close()
            archive.seek(0)
            files = (archive.fileno(), connection.fileno())
            command = _sandbox_command(_sandbox_uid(), files, handshake, [], limits, WORK, ["/bin/true"])
            with subprocess.Popen(command, pass_fds=files + handshake.sandbox_fds(), cwd="/",
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True) as done:
                handshake.go(timeout=30)
                _, stderr = done.communicate(timeout=30)
    except (OSError, subprocess.SubprocessError) as error:
        return f"bwrap could not run: {error}"
    if done.returncode != 0:
        lines = stderr.strip().splitlines()
        return lines[-1] if lines else f"bwrap exited with status {done.returncode}"
    return None


def _kept_environment(environ):
    return {k: v for k, v in environ.items() if k in _KEPT_VARIABLES or k.startswith(_KEPT_PREFIXES)}


class _SandboxedKernelManager(jupyter_client.KernelManager):
    """A KernelManager whose kernel command runs inside the sandbox."""

    sandbox = None  # the Bubblewrap that owns it

    def format_kernel_cmd(self, extra_arguments=None):
        argv = super().format_kernel_cmd(extra_arguments)
        return self.sandbox.command(self, argv)


def _end_kernel(manager, session, token):
    """Shuts the kernel down at once, then kills whatever is left of its
    session or carries its token; returns how many that was."""
    try:
        if manager.has_kernel:
            manager.shutdown_kernel(now=True)
    finally:
        manager.cleanup_resources()
        if session is not None:
            processes.kernel_stopped(session)
        killed = processes.kill_all(token, session)
        processes.kill_orphans()
    return killed


class Unconfined:
    """--sandbox off: the kernel as the grader's user in the private folder,
    HOME and TMPDIR beside it; every process carrying the run's token or in
    the kernel's session is killed afterwards."""

    mode = "off"

    def __init__(self, private, cwd, environ, limits, keep_log=False):
        self.limits = limits
        self.log = os.path.join(private, KERNEL_LOG) if keep_log else None
        self.work = os.path.join(private, "work")  # filled by the caller before start()
        self.runtime = os.path.join(private, "runtime")
        home, tmp = os.path.join(private, "home"), os.path.join(private, "tmp")
        for folder in (self.work, self.runtime, home, tmp):
            os.mkdir(folder, 0o700)
        self.cwd = os.path.join(self.work, cwd)
        self.token = environ[processes.TOKEN_VARIABLE]
        self.env = dict(environ, HOME=home, TMPDIR=tmp)
        self.session = None

    def start(self, kernel_name):
        manager = jupyter_client.KernelManager(kernel_name=kernel_name)
        manager.connection_file = os.path.join(self.runtime, f"kernel-{os.urandom(8).hex()}.json")
        with processes.launch_lock, open(self.log or os.devnull, "ab") as log:
            manager.start_kernel(cwd=self.cwd, env=dict(self.env), stdout=subprocess.DEVNULL, stderr=log)
            self.session = manager.provisioner.process.pid  # the kernel leads its own session
            processes.kernel_started(self.session)
        if self.limits.memory_bytes:
            # Set on the running kernel (preexec_fn is unsafe with our job threads); children inherit it.
            limit = self.limits.memory_bytes
            try:
                resource.prlimit(self.session, resource.RLIMIT_AS, (limit, limit))
            except ProcessLookupError:
                pass  # died at once: wait_for_ready says so
        return manager, manager.blocking_client()

    def interrupt(self, manager):
        manager.interrupt_kernel()

    def stop(self, manager):
        """Ends the kernel and everything it started; returns how many other processes were killed."""
        return _end_kernel(manager, self.session, self.token)


class Bubblewrap:
    """The kernel in a bubblewrap sandbox; see the module's docstring."""

    mode = "bubblewrap"

    def __init__(self, private, cwd, environ, limits, keep_log=False):
        self.limits = limits
        self.uid = _sandbox_uid()
        self.private = private
        self.work = os.path.join(private, "work")  # filled by the caller before start()
        os.mkdir(self.work, 0o700)
        self.cwd = os.path.normpath(os.path.join(WORK, cwd))
        folders, pyenv = _interpreter_folders(environ)
        self.token = environ[processes.TOKEN_VARIABLE]
        self.env = dict(_kept_environment(environ), HOME=HOME, TMPDIR="/tmp", PYENV_ROOT=pyenv,
                        MPLBACKEND=environ.get("MPLBACKEND", "agg"), **{processes.TOKEN_VARIABLE: self.token})
        self.read_only = folders
        self.log = os.path.join(private, KERNEL_LOG)  # always: start_error reads bwrap's last words
        self.session = None
        self.init = None  # the sandbox's first process (PID 1 inside)
        self._files = self._handshake = None  # while it starts

    # -- the command
    def _installation(self, manager, argv):
        """Host paths the kernel needs: the absolute paths its command and
        environment name (required), and its kernelspec's prefix (when in reach)."""
        spec = manager.kernel_spec
        values = list(argv) + [v for value in spec.env.values() for v in str(value).split(os.pathsep)]
        required = [os.path.realpath(v) for v in values
                    if os.path.isabs(v) and os.path.exists(v) and v != manager.connection_file]
        unreachable = [path for path in required if not _readable_by(path, self.uid)]
        if unreachable:
            raise KernelOutOfReach(f"the sandbox's user (uid {self.uid}) cannot read {unreachable[0]}: install the "
                                   "kernel where every user can read it (e.g. /opt/gillab), or use --sandbox off")
        resources = os.path.realpath(spec.resource_dir)
        share = os.path.dirname(os.path.dirname(resources))  # PREFIX/share/jupyter
        optional = [os.path.dirname(os.path.dirname(share)) if os.path.basename(share) == "jupyter" else resources]
        return required + [path for path in optional if _readable_by(path, self.uid)]

    def command(self, manager, argv):
        kernel = [CONNECTION_FILE if a == manager.connection_file else a for a in argv]
        read_only = self.read_only + self._installation(manager, argv)
        return _sandbox_command(self.uid, self._files, self._handshake, read_only, self.limits, self.cwd, kernel)

    def _archive(self):
        """The private copy as a tar archive in an unnamed file, rewound."""
        archive = tempfile.TemporaryFile(dir=self.private)
        with tarfile.open(fileobj=archive, mode="w") as tar:
            for name in sorted(os.listdir(self.work)):
                tar.add(os.path.join(self.work, name), arcname=name)
        archive.seek(0)
        return archive

    # -- the kernel's life
    def start(self, kernel_name):
        manager = _SandboxedKernelManager(kernel_name=kernel_name, transport="ipc", ip=f"{RUN}/kernel")
        manager.cache_ports = False
        manager.sandbox = self
        manager.connection_file = os.path.join(self.private, f"kernel-{os.urandom(8).hex()}.json")
        manager.write_connection_file()  # now, so that it can be handed in as data
        with self._archive() as archive, open(manager.connection_file, "rb") as connection, \
                open(self.log, "ab") as log, _Handshake() as self._handshake:
            self._files = (archive.fileno(), connection.fileno())
            with processes.launch_lock:
                manager.start_kernel(cwd="/", env=dict(self.env), stdout=subprocess.DEVNULL, stderr=log,
                                     pass_fds=self._files + self._handshake.sandbox_fds())
                self.session = manager.provisioner.process.pid
                processes.kernel_started(self.session)
            # None: it ended at once, and wait_for_ready reports why.
            self.init = self._handshake.go(timeout=10.0) or self.session
        client = manager.blocking_client()
        # The same sockets, seen from outside the sandbox's mount namespace.
        client.ip = f"/proc/{self.init}/root{RUN}/kernel"
        return manager, client

    def start_error(self):
        """bwrap's last words, when the kernel never answered."""
        try:
            with open(self.log, encoding="utf-8", errors="replace") as log:
                lines = [line.strip() for line in log.read()[-4000:].splitlines() if line.strip()]
        except OSError:
            return ""
        return lines[-1] if lines else ""

    def _inside(self):
        """The sandbox's processes (PID 1 excluded), oldest first: the kernel, then what it started."""
        try:
            procs = psutil.Process(self.init).children(recursive=True)
        except psutil.Error:
            return []
        alive = []
        for proc in procs:
            try:
                if proc.status() != psutil.STATUS_ZOMBIE:
                    alive.append((proc.create_time(), proc.pid, proc))
            except psutil.Error:
                pass
        return [proc for _, _, proc in sorted(alive)]

    def _group(self):
        """The sandbox's processes in the kernel's process group (what
        jupyter_client signals), and those that left it (as daemons do)."""
        try:
            group = os.getpgid(self.session)
        except (OSError, TypeError):
            return [], []
        inside, outside = [], []
        for proc in self._inside():
            try:
                (inside if os.getpgid(proc.pid) == group else outside).append(proc)
            except OSError:
                pass
        return inside, outside

    def _all_but_kernel(self):
        """The sandbox's live processes but the kernel (the oldest of PID 1's children)."""
        try:
            kernel = min(psutil.Process(self.init).children(), key=lambda p: (p.create_time(), p.pid))
        except (psutil.Error, ValueError):
            return []
        return [p for p in self._inside() if p.pid != kernel.pid]

    def freeze_all_but_kernel(self):
        """SIGSTOPs every process in the sandbox but the kernel. Frozen, a fork
        bomb's copies keep their places under the process limit, so the
        kernel's own next fork fails and its cell ends, instead of racing
        copies that die and make room for more."""
        for proc in self._all_but_kernel():
            try:
                if proc.status() != psutil.STATUS_STOPPED:
                    proc.send_signal(signal.SIGSTOP)
            except psutil.Error:
                pass

    def end_leftovers(self):
        """Kills every process in the sandbox but the kernel; returns how many that was."""
        killed = set()
        for _ in range(20):
            procs = self._all_but_kernel()
            if not procs:
                break
            killed.update(p.pid for p in procs)
            process_tree.freeze_then_kill([p.pid for p in procs])
            psutil.wait_procs(procs, timeout=0.5)
        return len(killed)

    def interrupt(self, manager):
        """SIGINT to the kernel's process group, not to bwrap itself: bwrap dies of it."""
        for proc in self._group()[0]:
            try:
                proc.send_signal(signal.SIGINT)
            except psutil.Error:
                pass

    def stop(self, manager):
        """Ends the sandbox: its PID namespace takes every process with it.
        Returns how many had left the kernel's process group, the ones an
        unconfined kernel's shutdown would leave behind (a pool's helpers end
        with the kernel and are not counted)."""
        left = len(self._group()[1]) if self.init else 0
        _end_kernel(manager, self.session, self.token)
        return left


def host_for(mode):
    return {"bubblewrap": Bubblewrap, "off": Unconfined}[mode]
