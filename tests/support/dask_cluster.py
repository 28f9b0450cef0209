"""A Dask cluster on 127.0.0.1 for the grading tests and bench/grading: a dask-scheduler and N
dask-worker processes (Debian's python3-distributed), each worker one thread and no nanny (a killed
worker stays dead), finding gillab-grade and the kernel in the build's prefix as a deployed worker
finds them in the image. Started and stopped by its user; nothing of it outlives stop()."""

import os
import subprocess

import distributed

from loopback import free_port


class LocalCluster:
    def __init__(self, prefix, workdir, workers=2):
        self.address = f"tcp://127.0.0.1:{free_port()}"
        env = dict(os.environ, PYTHONPATH=os.path.join(prefix, "lib", "gillab", "python"),
                   JUPYTER_PATH=os.path.join(prefix, "share", "jupyter"), TMPDIR=workdir)
        self.quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=workdir)
        self.scheduler = subprocess.Popen(["dask-scheduler", "--host", "127.0.0.1", "--port",
                                           self.address.rsplit(":", 1)[1], "--no-dashboard"], **self.quiet)
        self.workers = []
        try:
            self.add_workers(workers)
        except BaseException:
            self.stop()
            raise

    def add_workers(self, count):
        """Starts count more workers; returns once the scheduler answers and every worker has joined it."""
        self.workers += [subprocess.Popen(["dask-worker", self.address, "--nthreads", "1", "--no-nanny",
                                           "--host", "127.0.0.1", "--no-dashboard", "--name", f"w{n}"], **self.quiet)
                         for n in range(len(self.workers), len(self.workers) + count)]
        with distributed.Client(self.address, timeout=60) as client:
            if self.workers:
                client.wait_for_workers(len(self.workers), timeout=60)

    def stop(self):
        for proc in self.workers + [self.scheduler]:
            proc.terminate()
        for proc in self.workers + [self.scheduler]:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
