"""%switchinterval's probes while a front end talks to the kernel: JupyterLab's debugger sends
`modules` requests on the control channel during a cell, and the thread answering them is one
more GIL waiter. Each probe's lateness behind the spinner stays what it is without the requests
(wide margins: 2 noisy cores; the upper quartile, which a loaded machine moves least)."""

import pytest
from front_end_traffic import quiet_then_busy

SWEEP = "%switchinterval --sweep 5ms --probe {probe} --duration 1s -o r"


def probe_figures(kernel):
    return kernel.eval("r.run('5ms')['lateness_ms']['q3']"), kernel.eval("r.handovers('5ms')")


@pytest.mark.parametrize("probe", ["sleep", "yield"])
def test_modules_requests_during_a_sweep_leave_the_probes_lateness_as_without_them(kernel, probe):
    (quiet, quiet_handovers), (busy, busy_handovers), answered = quiet_then_busy(
        kernel, SWEEP.format(probe=probe), probe_figures)
    assert answered > 10, answered  # the requests were answered while the sweep ran
    assert quiet_handovers > 10 and busy_handovers > 10, (quiet_handovers, busy_handovers)
    assert quiet > 1.0 and busy > 1.0, (quiet, busy)  # both waited behind the 5 ms spinner
    assert 0.4 < busy / quiet < 2.5, (quiet, busy)
