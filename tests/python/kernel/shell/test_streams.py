import subprocess
import sys


def test_streams_write_through_to_fds_1_and_2_line_by_line_without_failing_on_bad_text(package_dir):
    code = ("from gillab.kernel.shell import streams; streams.install(); import os, sys\n"
            "print('one'); os.write(1, b'two\\n'); print('caf\\u00e9', '\\udcff'); print('err', file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-s", "-c", code], capture_output=True, env={"PYTHONPATH": package_dir},
                          timeout=60)
    assert done.returncode == 0, done.stderr
    # line-buffered: print's line is out before the raw write that follows it
    assert done.stdout == "one\ntwo\ncafé \\udcff\n".encode()
    assert done.stderr == b"err\n"
