"""The clients' tests share their server and process helpers with bench/ (tests/support/loopback.py)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support"))
