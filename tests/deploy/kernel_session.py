"""Run inside an installed system (its /usr/bin/python3, its own jupyter_client): starts the kernel
named by argv[1] the way every Jupyter server does (the kernelspec found on Jupyter's standard
path), sends kernel_info and each cell of the JSON list argv[2], and prints one JSON object:
{"kernel_info": content, "cells": [{"reply": content, "outputs": [iopub messages]}]}.
Standard library and jupyter_client only: it is the installed system's code that is under test."""

import json
import sys

import jupyter_client


def run_cell(client, code):
    msg_id = client.execute(code)
    reply = client.get_shell_msg(timeout=300)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = client.get_shell_msg(timeout=300)
    outputs = []
    while True:
        msg = client.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
        if msg["msg_type"] in ("stream", "display_data", "execute_result", "error"):
            outputs.append({"msg_type": msg["msg_type"], "content": msg["content"]})
    return {"reply": reply["content"], "outputs": outputs}


def main():
    cells = json.loads(sys.argv[2])
    manager, client = jupyter_client.manager.start_new_kernel(kernel_name=sys.argv[1], startup_timeout=120)
    try:
        info = client.kernel_info(reply=True, timeout=60)["content"]
        results = [run_cell(client, code) for code in cells]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)
    json.dump({"kernel_info": info, "cells": results}, sys.stdout)


if __name__ == "__main__":
    main()
