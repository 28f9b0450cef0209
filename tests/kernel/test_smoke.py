"""The kernel's whole life in one test, its terminal output kept: start, 1+1,
%gilinfo, a tiny %%gilbench, an interrupt, a shutdown on request. In the
sanitizer build (make sanitize) the log must hold no ASan or UBSan report."""

import pytest

from conftest import Kernel

pytestmark = pytest.mark.check

SANITIZER_REPORTS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer", "SUMMARY: ")


def test_start_run_measure_interrupt_and_shut_down_with_a_clean_log(tmp_path):
    kernel = Kernel(log_path=str(tmp_path / "kernel.log"))
    process = kernel.manager.provisioner.process
    try:
        assert kernel.eval("1+1") == 2
        assert "switch interval" in kernel.ok("%gilinfo").value()
        bench = kernel.ok("%%gilbench --modes sequential,threads,processes --workers 2 --jobs 2 --repeats 1 -o r\n"
                          "def job(i):\n    return i * i\n", timeout=300)
        assert "gilbench" in bench.value()
        assert kernel.eval("r.results_match") is True

        kernel.interrupt_after(2)
        stopped = kernel.execute("while True:\n    pass\n", timeout=120)
        assert stopped.reply["content"]["ename"] == "KeyboardInterrupt"
        assert kernel.eval("1+1") == 2
    finally:
        kernel.client.stop_channels()
        kernel.manager.shutdown_kernel(now=False)
    assert process.wait(timeout=30) == 0, kernel.log()[-4000:]
    log = kernel.log()
    for report in SANITIZER_REPORTS:
        assert report not in log, log[-4000:]
    assert "terminate called" not in log, log[-4000:]
