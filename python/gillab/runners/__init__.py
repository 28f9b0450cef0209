"""Pure-Python measurement tasks that run in the kernel and in child interpreters (--python).

child.py is the entry point of a child; interpreter.py describes an interpreter; task_NAME.py
holds one magic's measuring loop (`measure(request)`). Standard library only, CPython 3.8+.
"""
