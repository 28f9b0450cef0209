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
  autograde        the batch: a private folder and kernel per submission
  collect          submissions copied from students' home folders
  check            a folder of instructor notebooks validated and executed both ways
  cli              the gillab-grade command
"""
