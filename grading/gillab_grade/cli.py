"""gillab-grade: release, collect, autograde and check notebooks in nbgrader's format, and hand the
feedback back."""

import argparse
import os
import signal
import sys

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from . import autograde, check, collect, gradebook, processes, release, release_feedback
from .grade_one import Options
from .limits import MIB, Limits
from .local import Local


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
        return value
    return parse


def _add_run_options(parser):
    parser.add_argument("--kernel", default="gillab", help="kernel name (default: gillab)")
    parser.add_argument("--timeout", type=_positive(float), default=30.0,
                        help="seconds per cell before it is interrupted (default: 30)")
    parser.add_argument("--notebook-timeout", type=_positive(float), default=600.0,
                        help="seconds for a whole notebook; cells past it are not run (default: 600)")
    parser.add_argument("--interrupt-grace", type=_positive(float), default=10.0,
                        help="seconds an interrupted cell gets to stop before its kernel is replaced (default: 10)")
    parser.add_argument("--max-output", type=_positive(int), default=1_000_000,
                        help="bytes of output kept per cell (default: 1000000)")
    parser.add_argument("--memory-limit", type=_positive(int), default=None, metavar="MB",
                        help="address-space limit of each kernel process, in MiB (default: none)")
    parser.add_argument("--jobs", type=_positive(int), default=None,
                        help="notebooks graded in parallel, each in its own kernel (default: the cores this "
                             "process may use, the fewer of its affinity mask and its cgroup CPU quota)")
    parser.add_argument("--lecture-size", choices=("quick", "full"), default="quick",
                        help="how long the lectures' measurements run in each kernel: quick (GILLAB_QUICK=1, the "
                             "size every exercise is tested at, each cell well inside --timeout) or full (as in "
                             "class; give --timeout 120 or more) (default: quick)")
    defaults = Limits()
    parser.add_argument("--sandbox", choices=("auto", "on", "off"), default="auto",
                        help="run each kernel in a bubblewrap sandbox: auto (when this machine allows it), "
                             "on (or fail), off (unconfined, as the grader's user) (default: auto)")
    parser.add_argument("--process-limit", type=_positive(int), default=defaults.processes, metavar="N",
                        help=f"processes and threads in a sandbox (default: {defaults.processes})")
    parser.add_argument("--file-size-limit", type=_positive(int), default=defaults.file_bytes // MIB, metavar="MB",
                        help=f"largest file a sandboxed process writes, in MiB (default: {defaults.file_bytes // MIB})")
    parser.add_argument("--cpu-limit", type=_positive(int), default=defaults.cpu_seconds, metavar="SECONDS",
                        help=f"CPU time of each sandboxed process; the kernel is ended past it "
                             f"(default: {defaults.cpu_seconds})")
    parser.add_argument("--disk-limit", type=_positive(int), default=defaults.disk_bytes // MIB, metavar="MB",
                        help=f"size of a sandbox's private folder and of its /tmp, each, in MiB; they are held "
                             f"in memory (default: {defaults.disk_bytes // MIB})")


def _sandbox_mode(choice, limits, executor):
    """bubblewrap or off (where executor grades: here, or on every worker of its cluster); says
    loudly, in one line, when submissions will run unconfined."""
    user = executor.who
    if choice == "off":
        print(f"gillab-grade: WARNING: --sandbox off: submissions run unconfined as {user}, with the network "
              "and every file that user can read in reach", file=sys.stderr, flush=True)
        return "off"
    why = executor.probe(limits)
    if why is None:
        return "bubblewrap"
    if choice == "on":
        sys.exit(f"gillab-grade: --sandbox on, but no sandbox can be made here: {why}")
    print(f"gillab-grade: WARNING: no sandbox ({why}): submissions run unconfined as {user}, with the network "
          "and every file that user can read in reach", file=sys.stderr, flush=True)
    return "off"


def _executor(args):
    """Where the notebooks are graded: a Dask cluster (--scheduler), or this machine's kernels."""
    scheduler = getattr(args, "scheduler", "")
    if scheduler:
        from .cluster import Cluster  # Dask only for a cluster run
        return Cluster(scheduler, args.wait_for_workers)
    return Local(args.jobs or _usable_cores())


def _options(args, executor):
    limits = Limits(cell_timeout=args.timeout, notebook_timeout=args.notebook_timeout,
                    interrupt_grace=args.interrupt_grace,
                    max_output_bytes=args.max_output, memory_bytes=(args.memory_limit or 0) * MIB,
                    processes=args.process_limit, file_bytes=args.file_size_limit * MIB,
                    cpu_seconds=args.cpu_limit, disk_bytes=args.disk_limit * MIB)
    return Options(kernel_name=args.kernel, limits=limits, sandbox=_sandbox_mode(args.sandbox, limits, executor),
                   kernel_logs=os.path.abspath(args.kernel_logs) if getattr(args, "kernel_logs", "") else "",
                   lecture_size=args.lecture_size)


def _usable_cores():
    from gillab.runners.cores import usable_cores  # installed beside this package
    return usable_cores()["cores"]


def _parser():
    parser = argparse.ArgumentParser(prog="gillab-grade", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("release", help="write the student versions of a folder of instructor notebooks")
    p.add_argument("source_dir")
    p.add_argument("out_dir")

    p = commands.add_parser("collect", help="copy submissions from students' home folders")
    p.add_argument("homes_dir", help="folder with one home folder per student (e.g. /home)")
    p.add_argument("submissions_dir", help="where SUBMISSIONS/<student>/<notebook> are written")
    p.add_argument("--source", required=True, help="the instructor notebooks (names to collect)")
    p.add_argument("--path-in-home", default="", help="folder inside each home holding the notebooks")

    p = commands.add_parser("autograde", help="grade SUBMISSIONS/<student>/<notebook> against the instructor version")
    p.add_argument("submissions_dir")
    p.add_argument("--source", required=True, help="the instructor notebooks")
    p.add_argument("--out", default="autograded", help="results folder (default: ./autograded)")
    p.add_argument("--kernel-logs", metavar="DIR", default="",
                   help="keep each kernel's terminal output (its last MiB) as DIR/<student>/<notebook>.log "
                        "(default: removed with the kernel's private folder)")
    p.add_argument("--scheduler", metavar="ADDRESS", default="",
                   help="grade on the workers of the Dask cluster whose scheduler is ADDRESS (tcp://HOST:PORT), "
                        "each notebook in a worker's own sandbox with these limits; --jobs is then the "
                        "workers' threads (default: grade on this machine)")
    p.add_argument("--wait-for-workers", type=_positive(float), default=60.0, metavar="SECONDS",
                   help="with --scheduler: how long to wait for a first worker to join before giving up "
                        "(default: 60)")
    p.add_argument("--show-hidden-tests", action="store_true",
                   help="show hidden tests (and their tracebacks) on the feedback pages (default: left out)")
    _add_run_options(p)

    p = commands.add_parser("release-feedback", help="copy each student's feedback pages into her home")
    p.add_argument("graded_dir", help="autograde's --out folder (its feedback/<student>/ pages)")
    p.add_argument("homes_dir", help="folder with one home folder per student (e.g. /home)")
    p.add_argument("--path-in-home", default="feedback",
                   help="folder inside each home the pages go to, made when missing (default: feedback)")

    p = commands.add_parser("check", help="validate and execute instructor notebooks both ways")
    p.add_argument("notebook_dir")
    p.add_argument("--allow-free-points", action="store_true",
                   help="do not fail on tests that pass on the student version")
    _add_run_options(p)
    return parser


def _require_kernel(name):
    try:
        KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel:
        found = ", ".join(sorted(KernelSpecManager().find_kernel_specs())) or "none"
        sys.exit(f"gillab-grade: no kernel named '{name}'; installed: {found}")


def _require_dir(path, what):
    if not os.path.isdir(path):
        sys.exit(f"gillab-grade: {what} '{path}' is not a folder")


def _print_errors(errors):
    for error in errors:
        print(f"gillab-grade: {error}", file=sys.stderr)


def _run_release(args):
    _require_dir(args.source_dir, "source")
    errors = release.release(args.source_dir, args.out_dir)
    if errors:
        _print_errors(errors)
        return 1
    print(f"released {len(release.find_notebooks(args.source_dir))} notebook(s) to {args.out_dir}")
    return 0


def _run_collect(args):
    _require_dir(args.homes_dir, "homes")
    _require_dir(args.source, "source")
    report = collect.collect(args.homes_dir, args.submissions_dir, args.source, args.path_in_home)
    for student, rel, why in report.refused:
        print(f"gillab-grade: refused {student}/{rel}: {why}", file=sys.stderr)
    print(f"collected {len(report.collected)} notebook(s); {len(report.missing)} missing; "
          f"{len(report.refused)} refused")
    return 0


def _run_release_feedback(args):
    _require_dir(os.path.join(args.graded_dir, "feedback"), "feedback")
    _require_dir(args.homes_dir, "homes")
    report = release_feedback.release_feedback(args.graded_dir, args.homes_dir, args.path_in_home)
    for student in report.no_home:
        print(f"gillab-grade: no home for {student} in {args.homes_dir}: her feedback stays in "
              f"{os.path.join(args.graded_dir, 'feedback', student)}", file=sys.stderr)
    for student, why in report.refused:
        print(f"gillab-grade: refused {student}: {why}", file=sys.stderr)
    students = len({student for student, _ in report.returned})
    print(f"returned {len(report.returned)} feedback page(s) to {students} student(s); "
          f"{len(report.no_home)} without a home; {len(report.refused)} refused")
    return 1 if report.refused or report.no_home else 0


def _run_autograde(args):
    _require_dir(args.submissions_dir, "submissions")
    _require_dir(args.source, "source")
    _require_kernel(args.kernel)

    def progress(grade):
        score, max_score = grade.totals[:2]
        print(f"graded {grade.student}/{grade.notebook}: {score:g}/{max_score:g} ({grade.status}, "
              f"{grade.seconds:.1f} s)", file=sys.stderr, flush=True)

    with _executor(args) as executor:
        grades = autograde.grade_batch(args.submissions_dir, args.source, args.out, _options(args, executor),
                                       executor, progress, args.show_hidden_tests)
    print(gradebook.text_table(grades))
    print(f"\ngrades: {os.path.join(args.out, 'grades.csv')}, {os.path.join(args.out, 'grades.json')}; "
          f"feedback: {os.path.join(args.out, 'feedback')}")
    return 1 if any(g.status == "failed" for g in grades) else 0


def _run_check(args):
    _require_dir(args.notebook_dir, "notebook")
    _require_kernel(args.kernel)
    with _executor(args) as executor:
        results, errors = check.check(args.notebook_dir, _options(args, executor), executor, args.allow_free_points)
    if errors:
        _print_errors(errors)
        return 1
    for result in results:
        print(result.line())
    return 1 if any(r.problems for r in results) else 0


def _terminate(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = _parser().parse_args(argv)
    run = {"release": _run_release, "collect": _run_collect, "autograde": _run_autograde,
           "release-feedback": _run_release_feedback, "check": _run_check}[args.command]
    if args.command in ("autograde", "check"):
        # Orphans of graded notebooks come back to us, and are killed at the end.
        processes.become_subreaper()
        signal.signal(signal.SIGTERM, _terminate)
        signal.signal(signal.SIGHUP, _terminate)
    try:
        return run(args)
    except KeyboardInterrupt:
        print("gillab-grade: stopped", file=sys.stderr)
        return 130
    except release.fmt.MetadataError as error:
        _print_errors([error])
        return 1
    finally:
        if args.command in ("autograde", "check"):
            processes.kill_orphans()


if __name__ == "__main__":
    sys.exit(main())
