"""Output from anywhere reaches the notebook as stream output, in order."""

import re

import pytest


def lines_of(text, tag):
    return sorted(re.findall(rf"{tag}-\d+", text))


def test_print_from_python_threads(kernel):
    result = kernel.ok(
        "import threading\n"
        "ts = [threading.Thread(target=print, args=(f'thread-{i}',)) for i in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n")
    assert lines_of(result.stream("stdout"), "thread") == \
        sorted(f"thread-{i}" for i in range(8))


def test_print_from_thread_pool_and_to_thread(kernel):
    result = kernel.ok(
        "import asyncio, concurrent.futures\n"
        "with concurrent.futures.ThreadPoolExecutor(4) as pool:\n"
        "    list(pool.map(lambda i: print(f'pool-{i}'), range(6)))\n"
        "await asyncio.gather(*(asyncio.to_thread(print, f'tothread-{i}') for i in range(3)))\n")
    out = result.stream("stdout")
    assert len(lines_of(out, "pool")) == 6
    assert len(lines_of(out, "tothread")) == 3


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_print_from_child_processes(kernel, method):
    # spawn and forkserver re-import the job, so it lives in a real module.
    result = kernel.ok(
        "import multiprocessing, os, sys, tempfile, importlib\n"
        "_d = tempfile.mkdtemp()\n"
        "open(os.path.join(_d, 'childjob.py'), 'w').write(\n"
        "    'import sys\\ndef job(i):\\n    print(f\"child-{i}\")\\n'\n"
        "    '    print(f\"childerr-{i}\", file=sys.stderr)\\n    return i\\n')\n"
        "sys.path.insert(0, _d); import childjob; importlib.reload(childjob)\n"
        f"ctx = multiprocessing.get_context('{method}')\n"
        "with ctx.Pool(2) as pool:\n"
        "    assert pool.map(childjob.job, range(4)) == [0, 1, 2, 3]\n"
        "sys.path.remove(_d); import shutil; shutil.rmtree(_d)\n", timeout=60)
    assert lines_of(result.stream("stdout"), "child") == [f"child-{i}" for i in range(4)]
    assert lines_of(result.stream("stderr"), "childerr") == [f"childerr-{i}" for i in range(4)]


def test_print_from_a_forked_child_directly(kernel):
    result = kernel.ok(
        "import os\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    print('from the forked child', flush=True); os._exit(0)\n"
        "os.waitpid(pid, 0)\n")
    assert "from the forked child" in result.stream("stdout")


def test_c_level_writes_to_fd_1_and_2(kernel):
    result = kernel.ok(
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None)\n"
        "libc.write(1, b'c-stdout\\n', 9); libc.write(2, b'c-stderr\\n', 9)\n"
        "os.system('echo shell-child; echo shell-err 1>&2')\n")
    assert "c-stdout" in result.stream("stdout") and "shell-child" in result.stream("stdout")
    assert "c-stderr" in result.stream("stderr") and "shell-err" in result.stream("stderr")


def test_stream_text_comes_before_the_result_and_the_error(kernel):
    result = kernel.execute("print('first')\nimport sys; print('second', file=sys.stderr)\nraise ValueError('third')")
    kinds = [m["msg_type"] for m in result.messages]
    assert kinds.index("error") > max(i for i, k in enumerate(kinds) if k == "stream")
    result = kernel.ok("print('before', end='')\n42")
    kinds = [m["msg_type"] for m in result.messages]
    assert kinds == ["execute_input", "stream", "execute_result"], kinds


def test_a_print_flood_arrives_whole_in_few_messages(kernel):
    result = kernel.ok("for i in range(20000): print(i)")
    assert result.stream("stdout") == "".join(f"{i}\n" for i in range(20000))
    assert len(result.of_type("stream")) < 200


def test_display_from_a_thread(kernel):
    result = kernel.ok(
        "import threading\nfrom IPython.display import display, HTML\n"
        "t = threading.Thread(target=display, args=(HTML('<i>from thread</i>'),)); t.start(); t.join()\n")
    shown = [m["content"]["data"].get("text/html") for m in result.of_type("display_data")]
    assert "<i>from thread</i>" in shown


def test_threads_printing_across_300_cells(fresh_kernel):
    """8 threads print without pause while 300 cells run: every reply, every
    busy/idle pair, every line, and a live kernel afterwards."""
    k = fresh_kernel
    seen = []
    busy = idle = 0

    def run_collecting(code):
        """Runs code; keeps every stream message, whichever cell it belongs to."""
        nonlocal busy, idle
        msg_id = k.client.execute(code)
        while True:
            msg = k.client.get_iopub_msg(timeout=30)
            if msg["msg_type"] == "stream":
                seen.append(msg["content"]["text"])
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status":
                state = msg["content"]["execution_state"]
                busy += state == "busy"
                idle += state == "idle"
                if state == "idle":
                    break
        assert k.shell_reply(msg_id, timeout=30)["content"]["status"] == "ok"

    run_collecting("import threading, itertools\n"
                   "stop = threading.Event()\n"
                   "counts = [0] * 8\n"
                   "def chatter(n):\n"
                   "    for i in itertools.count():\n"
                   "        if stop.is_set(): break\n"
                   "        print(f'T{n}-{i}')\n"
                   "        counts[n] = i + 1\n"
                   "chatters = [threading.Thread(target=chatter, args=(n,)) for n in range(8)]\n"
                   "for t in chatters: t.start()\n")
    for cell in range(300):
        run_collecting(f"x = {cell} * 2")
    run_collecting("stop.set()\nfor t in chatters: t.join()\nprint('counts', counts)")
    assert busy == idle == 302
    text = "".join(seen)
    counts = eval(re.search(r"^counts (\[.*\])$", text, flags=re.M).group(1))
    for n in range(8):
        got = re.findall(rf"^T{n}-(\d+)$", text, flags=re.M)
        assert len(got) >= counts[n] and set(map(int, got)) >= set(range(counts[n])), f"thread {n} lost lines"
    assert k.eval("x") == 598
