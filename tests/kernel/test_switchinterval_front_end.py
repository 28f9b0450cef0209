"""%switchinterval's probes while a front end talks to the kernel: JupyterLab's debugger sends
`modules` requests on the control channel during a cell, and the thread answering them is one
more GIL waiter. Each probe's lateness behind the spinner stays what it is without the requests
(wide margins: 2 noisy cores; the upper quartile, which a loaded machine moves least)."""

import pytest
from front_end_traffic import FrontEndTraffic

SWEEP = "%switchinterval --sweep 5ms --probe {probe} --duration 1s -o r"


def upper_quartile(kernel, probe, traffic):
    cell = SWEEP.format(probe=probe)
    if traffic:
        with FrontEndTraffic(kernel.client) as sender:
            kernel.ok(cell, timeout=120)
        answered = sender.modules_answered
    else:
        kernel.ok(cell, timeout=120)
        answered = 0
    return kernel.eval("r.run('5ms')['lateness_ms']['q3']"), kernel.eval("r.handovers('5ms')"), answered


@pytest.mark.parametrize("probe", ["sleep", "yield"])
def test_modules_requests_during_a_sweep_leave_the_probes_lateness_as_without_them(kernel, probe):
    quiet, quiet_handovers, _ = upper_quartile(kernel, probe, traffic=False)
    busy, busy_handovers, answered = upper_quartile(kernel, probe, traffic=True)
    assert answered > 10, answered  # the requests were answered while the sweep ran
    assert quiet_handovers > 10 and busy_handovers > 10, (quiet_handovers, busy_handovers)
    assert quiet > 1.0 and busy > 1.0, (quiet, busy)  # both waited behind the 5 ms spinner
    assert 0.4 < busy / quiet < 2.5, (quiet, busy)
