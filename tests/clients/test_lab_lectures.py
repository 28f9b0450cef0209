"""Students work on their own copies in gillab's Lab (lab/gillab_lectures.py): the released
lectures (student versions) are copied into a folder of her own, never over her work, and one
lecture can be reset to a fresh copy with hers kept aside, over the REST API and in the browser."""

import os

import nbformat
import pytest

import browsers
from browsers import REPO, require
from loopback import JupyterServer, ServerProcess, api_request, free_port, server_command

RELEASED = os.path.join(REPO, "build", "prefix", "share", "gillab", "lectures")
LECTURES = sorted(n for n in os.listdir(os.path.join(REPO, "notebooks")) if n.endswith(".ipynb"))
DRIVER = os.path.join(browsers.HERE, "lab_lectures.js")


@pytest.fixture
def lab():
    require("lab")
    if not os.path.isdir(RELEASED):
        pytest.skip(f"the released lectures are not installed in {RELEASED} (make build)")
    server = JupyterServer("lab")
    yield server
    assert server.stop() == []


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_the_lab_copies_the_student_versions_into_her_own_folder(lab):
    folder = os.path.join(lab.root, "lectures")
    assert sorted(n for n in os.listdir(folder) if n.endswith(".ipynb")) == LECTURES
    for name in LECTURES:
        assert read_bytes(os.path.join(folder, name)) == read_bytes(os.path.join(RELEASED, name))
        text = read_bytes(os.path.join(folder, name)).decode()
        assert "### BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, name
    listed = lab.api("gillab/api/lectures")
    assert [entry["path"] for entry in listed["lectures"] if entry["name"].endswith(".ipynb")] == \
        [f"lectures/{name}" for name in LECTURES]
    assert all(entry["copied"] for entry in listed["lectures"])


def test_a_restarted_lab_keeps_her_work_and_brings_back_only_what_she_deleted(lab):
    folder = os.path.join(lab.root, "lectures")
    mine, deleted = os.path.join(folder, LECTURES[0]), os.path.join(folder, LECTURES[1])
    with open(mine, "a") as f:
        f.write(" ")
    kept = read_bytes(mine)
    os.remove(deleted)
    # her home, a new server
    port = free_port()
    again = ServerProcess("lab-again", server_command("lab", port, lab.token, lab.root), lab.env, cwd=lab.root)
    try:
        again.wait_for_http(f"http://127.0.0.1:{port}/api/status", headers={"Authorization": f"token {lab.token}"})
        assert read_bytes(mine) == kept
        assert read_bytes(deleted) == read_bytes(os.path.join(RELEASED, LECTURES[1]))
    finally:
        assert again.stop() == []


def test_reset_puts_a_fresh_copy_in_place_and_keeps_hers_in_previous(lab):
    folder = os.path.join(lab.root, "lectures")
    name = LECTURES[2]
    with open(os.path.join(folder, name), "a") as f:
        f.write(" ")
    mine = read_bytes(os.path.join(folder, name))
    reply = lab.api("gillab/api/lectures/reset", method="POST", body={"path": f"lectures/{name}"})
    assert reply["path"] == f"lectures/{name}" and reply["previous"].startswith("lectures/previous/")
    assert read_bytes(os.path.join(folder, name)) == read_bytes(os.path.join(RELEASED, name))
    assert read_bytes(os.path.join(lab.root, reply["previous"])) == mine


@pytest.mark.parametrize("path, status", [("lectures/no-such-lecture.ipynb", 404),
                                          ("elsewhere/" + LECTURES[0], 400),
                                          ("lectures/../" + LECTURES[0], 400)])
def test_reset_refuses_what_is_not_one_of_her_lectures(lab, path, status):
    with pytest.raises(OSError) as error:
        api_request(lab.url + "gillab/api/lectures/reset", lab.token, "POST", {"path": path})
    assert error.value.code == status


def test_in_the_browser_she_opens_her_copy_and_resets_it(lab):
    name, marker = LECTURES[0], "# my own note 4711"
    job = {"url": lab.url, "token": lab.token, "folder": "lectures", "lecture": name, "marker": marker,
           "kernel": browsers.kernel_display_name()}
    report = browsers.run_driver(DRIVER, job, lab.env, lab.base, lab.root, 240, "lab_lectures.js",
                                 server_log=lab.process.log_tail)
    assert "lectures" in report["rootListing"]
    assert name in report["lecturesListing"]
    released = nbformat.read(os.path.join(RELEASED, name), as_version=4)
    # Lab renders the cells in view only: the first code cell is among them.
    first_code = next(c.source for c in released.cells if c.cell_type == "code")
    assert " ".join(first_code.split()) in [" ".join(text.split()) for text in report["opened"]]
    assert any(marker in text for text in report["edited"])
    assert not any(marker in text for text in report["reset"])
    folder = os.path.join(lab.root, "lectures")
    assert read_bytes(os.path.join(folder, name)) == read_bytes(os.path.join(RELEASED, name))
    previous = os.listdir(os.path.join(folder, "previous"))
    assert len(previous) == 1 and previous[0].startswith(name[:-len(".ipynb")])
    kept = nbformat.read(os.path.join(folder, "previous", previous[0]), as_version=4)
    assert any(marker in c.source for c in kept.cells)
