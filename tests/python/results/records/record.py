#!/usr/bin/python3
"""Records the result objects the unit tests read: each magic run small in a real gillab kernel
(this build's), its `to_dict()` saved here as NAME.json. Run it again when a magic's record
changes shape: `/usr/bin/python3 tests/python/results/records/record.py` from the root."""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
sys.path.insert(0, os.path.join(ROOT, "tests", "kernel"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
os.environ.setdefault("JUPYTER_PATH", os.path.join(ROOT, "build", "prefix", "share", "jupyter"))

from conftest import Kernel  # noqa: E402

CALLS = {
    "gilinfo": "%gilinfo -o r",
    "gilbench": "%%gilbench --modes sequential,threads,asyncio --workers 1,2 --jobs 4 --repeats 2 --warmup 0"
                " --python kernel,/usr/bin/python3 -o r\n"
                "def job(i):\n    return sum(range(2000))\n"
                "async def ajob(i):\n    return sum(range(2000))\n",
    "race": "%%race --modes unlocked,lock --threads 2 --iterations 2000 --runs 2 --python kernel,/usr/bin/python3 -o r\n"
            "counter = 0\ncounter += 1\n",
    "switchinterval": "%switchinterval --sweep 5ms,1ms --duration 100ms --python kernel,/usr/bin/python3 -o r",
    "switchinterval_timeline": "%switchinterval --timeline --sweep 5ms --duration 50ms -o r",
    "heartbeat": "%%heartbeat -o r\nimport time\nend = time.perf_counter() + 0.15\nwhile time.perf_counter() < end:\n    pass\n",
    "gilwatch": "%%gilwatch -o r\nimport threading, time\n"
                "def spin():\n    end = time.perf_counter() + 0.1\n    while time.perf_counter() < end:\n        pass\n"
                "t = threading.Thread(target=spin, name='spinner')\nt.start()\nspin()\nt.join()\n"
                "w = threading.Thread(target=time.sleep, args=(0.01,), name='sleeper')\nw.start()\nw.join()\n",
    "gilwatch_exact": "%%gilwatch --exact -o r\nimport threading, time\n"
                      "def spin():\n    end = time.perf_counter() + 0.03\n    while time.perf_counter() < end:\n        pass\n"
                      "t = threading.Thread(target=spin, name='spinner')\nt.start()\nspin()\nt.join()\n",
}


def main():
    kernel = Kernel()
    try:
        for name, call in CALLS.items():
            result = kernel.execute(call, timeout=120)
            assert result.status == "ok", (name, result.reply["content"])
            record = kernel.eval("__import__('json').loads(__import__('json').dumps(r.to_dict()))")
            with open(os.path.join(HERE, name + ".json"), "w") as file:
                json.dump(record, file, indent=1, sort_keys=True)
                file.write("\n")
            print(name, "recorded")
    finally:
        kernel.shutdown()


if __name__ == "__main__":
    main()
