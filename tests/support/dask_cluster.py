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
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=workdir)
        self.scheduler = subprocess.Popen(["dask-scheduler", "--host", "127.0.0.1", "--port",
                                           self.address.rsplit(":", 1)[1], "--no-dashboard"], **quiet)
        self.workers = [subprocess.Popen(["dask-worker", self.address, "--nthreads", "1", "--no-nanny",
                                          "--host", "127.0.0.1", "--no-dashboard", "--name", f"w{n}"], **quiet)
                        for n in range(workers)]
        try:
            with distributed.Client(self.address, timeout=60) as client:
                client.wait_for_workers(workers, timeout=60)
        except BaseException:
            self.stop()
            raise

    def stop(self):
        for proc in self.workers + [self.scheduler]:
            proc.terminate()
        for proc in self.workers + [self.scheduler]:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
