"""The instructions of a loop's body, with the read, the write and the places a
running thread can notice a request for the GIL marked; for this interpreter, or
for another one through a child process (3.9's `dis`, say)."""

import dis
import json
import subprocess
import textwrap

# Where this kernel's 3.11 checks for a GIL drop request inside a loop: a call (the callee's RESUME, or a C
# call's return) and the backward jump. (3.10 named its back edge JUMP_ABSOLUTE; 3.9 checked almost everywhere.)
HAND_OVER = {"CALL", "CALL_FUNCTION", "JUMP_BACKWARD"}
SKIP = {"CACHE", "PRECALL", "PUSH_NULL", "RESUME", "NOP"}


def loop_body(function, name="counter"):
    """[(opname, argument, mark)] from FOR_ITER to the jump back, for `function`."""
    instructions = [i for i in dis.get_instructions(function) if i.opname not in SKIP]
    start = next(k for k, ins in enumerate(instructions) if ins.opname == "FOR_ITER")
    end = next(k for k, ins in enumerate(instructions) if k > start and "JUMP" in ins.opname and
               isinstance(ins.argval, int) and ins.argval <= instructions[start].offset)
    return [(ins.opname, ins.argrepr, _mark(ins, name)) for ins in instructions[start:end + 1]]


def _mark(ins, name):
    if ins.argval == name and ins.opname.startswith("LOAD"):
        return "read"
    if ins.argval == name and ins.opname.startswith("STORE"):
        return "write"
    if ins.opname in HAND_OVER:
        return "hand-over point (3.11)"
    return ""


_CHILD = textwrap.dedent('''
    import dis, json, sys
    source = sys.stdin.read()
    space = {}
    exec(source, space)
    out = []
    for ins in dis.get_instructions(space[sys.argv[1]]):
        out.append([ins.opname, ins.argrepr, ins.argval if isinstance(ins.argval, (int, str)) else None])
    print(json.dumps(out))
''')


def loop_body_in(python, source, function, name="counter", timeout=60):
    """The same listing as `loop_body`, computed by the interpreter `python` for `function`
    defined in `source`; returns (opname, argument, mark) triples (every instruction between
    the loop's FOR_ITER and its jump back)."""
    done = subprocess.run([python, "-c", _CHILD, function], input=source, capture_output=True, text=True,
                          timeout=timeout, check=True)
    listing = json.loads(done.stdout)
    start = next(k for k, ins in enumerate(listing) if ins[0] == "FOR_ITER")
    end = next(k for k, ins in enumerate(listing) if k > start and "JUMP" in ins[0] and "ABSOLUTE" in ins[0]
               or k > start and ins[0] == "JUMP_BACKWARD")
    body = []
    for opname, argrepr, argval in listing[start:end + 1]:
        if opname in SKIP:
            continue
        mark = ("read" if argval == name and opname.startswith("LOAD") else
                "write" if argval == name and opname.startswith("STORE") else "")
        body.append((opname, argrepr, mark))
    return body


def show(listing):
    """The listing as aligned text lines."""
    return "\n".join(f"    {op:<18} {arg:<14} {('<- ' + mark) if mark else ''}".rstrip() for op, arg, mark in listing)
