"""gillab-grade: release, collect, autograde and check notebooks in nbgrader's format.

One concern per module:
  nbformat_grader  nbgrader's cell metadata: flags, checksums, validation
  release          the student version of an instructor notebook
  restore          protected cells of a submission restored from the instructor version
  kernel_run       one notebook executed in a fresh kernel with limits
  limits           the limits, and the reason a limit gives when it ends a cell
  sandbox          where a kernel runs: a bubblewrap sandbox, or unconfined
  processes        finding and killing every process a submission started
  scoring          nbgrader's scoring rules
  gradebook        grades as CSV, JSON and a text table
  feedback         per-student feedback pages
  release_feedback the pages copied into each student's home
  grade_one        one unit of grading: a private folder and kernel per submission
  local            the executor on this machine: a pool of threads, one kernel each
  cluster          the executor on a Dask cluster's workers (--scheduler)
  autograde        the batch: which notebooks, graded by an executor, and what it writes
  collect          submissions copied from students' home folders
  check            a folder of instructor notebooks validated and executed both ways
  cli              the gillab-grade command
"""
