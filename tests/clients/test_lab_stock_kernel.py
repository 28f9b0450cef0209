"""In gillab's Lab the stock Python 3 kernel (Debian's ipykernel) finds gillab's magics: the Lab
gives every kernel it starts the folder the gillab kernelspec runs from."""

import os

import pytest

from browsers import require
from loopback import JupyterServer


@pytest.fixture
def lab():
    require("lab")
    if not os.path.exists("/usr/share/jupyter/kernels/python3/kernel.json"):
        pytest.skip("Debian's python3-ipykernel is not installed (make provision)")
    server = JupyterServer("lab")
    yield server
    assert server.stop() == []


def test_the_stock_python3_kernel_loads_gillab_and_runs_a_magic(lab):
    kernel = lab.api("api/kernels", method="POST", body={"name": "python3"})
    channels = lab.channels(kernel["id"])
    try:
        assert channels.wait_for_ready()["implementation"] == "ipython"
        reply, _ = channels.execute("%load_ext gillab")
        assert reply["status"] == "ok", reply
        reply, messages = channels.execute(
            "%%gilbench --modes sequential,threads --workers 1,2 --jobs 2 --repeats 1 --warmup 0 -o r\n"
            "def job(i):\n    return i\n")
        assert reply["status"] == "ok", reply
        assert any(m["msg_type"] == "display_data" for m in messages)
        reply, messages = channels.execute("print(r.results_match, sorted({row['mode'] for row in r.rows}))")
        printed = "".join(m["content"].get("text", "") for m in messages if m["msg_type"] == "stream")
        assert printed.strip() == "True ['sequential', 'threads']", (reply, messages)
    finally:
        channels.close()
