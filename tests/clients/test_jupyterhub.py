"""A course on Debian's JupyterHub 3.0: a test hub on 127.0.0.1 (dummy
authenticator, local process spawner, configurable-http-proxy), the gillab
kernelspec installed into the hub's prefix as docs/instructors.md tells instructors.
The instructor releases lecture 1 into the students' homes; students log in,
start their servers, run the lecture's magic cells through the hub's proxy over
the kernel websocket and save their answers; the instructor collects the two
submissions from their homes and grades them with gillab-grade."""

import http.cookiejar
import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import nbformat
import pytest

import browsers
from loopback import (JUPYTER_DIR, REPO, KernelChannels, ServerProcess, api_request, hub_config, jupyter_env, remove,
                      temp_base)
from result_bundle import RESULT_MIME

STUDENTS = ("student1", "student2")
PASSWORD = "course-password"
LECTURE = "01-what-the-gil-is.ipynb"
GRADE = os.path.join(REPO, "build", "prefix", "bin", "gillab-grade")
SOLUTION = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", re.MULTILINE)
HUB_CONFIG = """
c.SimpleLocalProcessSpawner.home_dir_template = "{base}/home/{{username}}"
c.Spawner.cmd = ["/usr/bin/jupyterhub-singleuser"]
# gillab's Lab as the students' UI (docs/instructors.md)
c.Spawner.args = ["--allow-root", "--ServerApp.jpserver_extensions=gillab_lab=True"]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {{"JUPYTER_PATH": "{hub_prefix}/share/jupyter", "TMPDIR": "{base}/tmp",
                          "PYTHONPATH": "{lab}",
                          "GILLAB_QUICK": "1"}}  # the lectures' short mode, as in the lecture tests
c.Spawner.start_timeout = 90
c.Spawner.http_timeout = 90
"""


def hub_unavailable():
    for program in ("/usr/bin/jupyterhub", "/usr/bin/jupyterhub-singleuser", "/usr/bin/configurable-http-proxy"):
        if not os.path.exists(program):
            return f"{program} is missing (apt package jupyterhub)"
    if shutil.which("node") is None:
        return "node is not on PATH (configurable-http-proxy needs it)"
    return None


class Hub:
    def __init__(self, url, base):
        self.url, self.base = url, base

    def request(self, path, method="GET", body=None, token=None):
        return api_request(self.url + path, token, method, body)

    def log_in(self, name):
        """The student's username and password for an API token of their own."""
        _, token = self.request(f"hub/api/users/{name}/tokens", "POST",
                                {"auth": {"username": name, "password": PASSWORD}, "note": "test login"})
        return token["token"]

    def start_server(self, name, token, timeout=90):
        """Starts the student's server unless it runs; returns its URL path once ready."""
        _, user = self.request(f"hub/api/users/{name}", token=token)
        if not user.get("servers", {}).get(""):
            status, _ = self.request(f"hub/api/users/{name}/server", "POST", {}, token=token)
            assert status in (201, 202)
        deadline = time.monotonic() + timeout
        while True:
            _, user = self.request(f"hub/api/users/{name}", token=token)
            server = user.get("servers", {}).get("")
            if server and server.get("ready"):
                return server["url"]
            assert time.monotonic() < deadline, f"{name}'s server did not start within {timeout} s: {user}"
            time.sleep(0.3)

    def home(self, name):
        return os.path.join(self.base, "home", name)

    def read_notebook(self, name, token, path):
        _, model = self.request(f"user/{name}/api/contents/{path}", token=token)
        return nbformat.from_dict(model["content"])

    def save_notebook(self, name, token, path, nb):
        status, _ = self.request(f"user/{name}/api/contents/{path}", "PUT",
                                 {"type": "notebook", "format": "json", "content": nb}, token=token)
        assert status in (200, 201)


@pytest.fixture(scope="module")
def hub():
    reason = hub_unavailable()
    if reason:
        pytest.skip(reason)
    base = temp_base("gillab-hub-")
    process = None
    try:
        hub_prefix = os.path.join(base, "hub-env")
        os.makedirs(os.path.join(base, "tmp"))
        for name in STUDENTS:
            os.makedirs(os.path.join(base, "home", name))
        env = jupyter_env(base, NODE_PATH="/usr/share/nodejs", CONFIGPROXY_AUTH_TOKEN=uuid.uuid4().hex)
        # The hub finds the kernel through its prefix, as docs/instructors.md tells instructors, not JUPYTER_PATH.
        del env["JUPYTER_PATH"]
        subprocess.run(["/usr/bin/jupyter", "kernelspec", "install", os.path.join(JUPYTER_DIR, "kernels", "gillab"),
                        "--prefix", hub_prefix], env=env, check=True, capture_output=True)
        url, common = hub_config(base, PASSWORD, STUDENTS)
        config = os.path.join(base, "jupyterhub_config.py")
        with open(config, "w") as f:
            f.write(common + HUB_CONFIG.format(base=base, hub_prefix=hub_prefix, lab=os.path.join(REPO, "lab")))
        process = ServerProcess("jupyterhub", ["/usr/bin/jupyterhub", "-f", config], env, cwd=base)
        hub = Hub(url, base)
        process.wait_for_http(f"{hub.url}hub/api", timeout=60)
        yield hub
        for name in STUDENTS:  # stop the servers the hub's way first
            token = hub.log_in(name)
            if hub.request(f"hub/api/users/{name}", token=token)[1].get("servers"):
                try:
                    hub.request(f"hub/api/users/{name}/server", "DELETE", token=token)
                except urllib.error.HTTPError:
                    pass  # still starting: stopping the hub below ends it too
    finally:
        leftovers = process.stop() if process else []
        remove(base)
    assert not leftovers, f"processes left behind: {leftovers}"


def start_kernel(hub, server_url, token):
    _, specs = hub.request(f"{server_url.lstrip('/')}api/kernelspecs", token=token)
    assert "gillab" in specs["kernelspecs"], sorted(specs["kernelspecs"])
    _, kernel = hub.request(f"{server_url.lstrip('/')}api/kernels", "POST", {"name": "gillab"}, token=token)
    ws_url = hub.url.replace("http", "ws", 1) + f"{server_url.lstrip('/')}api/kernels/{kernel['id']}/channels"
    return kernel["id"], KernelChannels(ws_url, token)


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None  # see the redirect itself: following it would spawn the server


def test_a_student_logs_in_through_the_login_form(hub):
    cookies = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(cookies), _Stay)
    form = urllib.parse.urlencode({"username": "student2", "password": PASSWORD}).encode()
    with pytest.raises(urllib.error.HTTPError) as redirected:
        browser.open(f"{hub.url}hub/login", data=form, timeout=30)
    assert redirected.value.code == 302
    assert any(c.name == "jupyterhub-hub-login" for c in cookies)
    with browser.open(f"{hub.url}hub/home", timeout=30) as page:
        assert page.status == 200 and "student2" in page.read().decode()


def test_wrong_password_gets_no_token(hub):
    with pytest.raises(urllib.error.HTTPError) as refused:
        hub.request("hub/api/users/student1/tokens", "POST",
                    {"auth": {"username": "student1", "password": "guess"}})
    assert refused.value.code == 403


def test_a_student_runs_magic_cells_through_the_hubs_proxy(hub):
    token = hub.log_in("student1")
    server_url = hub.start_server("student1", token)
    assert server_url == "/user/student1/"
    kernel_id, channels = start_kernel(hub, server_url, token)
    try:
        reply, messages = channels.execute("%gilinfo -o info")
        assert reply["status"] == "ok", reply
        result = [m for m in messages if m["msg_type"] == "execute_result"][0]["content"]["data"]
        assert result[RESULT_MIME]["magic"] == "gilinfo"
        assert "<table>" in result["text/html"]

        reply, messages = channels.execute(
            "%%gilbench --modes sequential,threads --workers 1,2 --jobs 2 --repeats 1 --warmup 0 -o r\n"
            "import time\ndef job(i):\n    time.sleep(0.05)\n    return i\n")
        assert reply["status"] == "ok", reply
        types = [m["msg_type"] for m in messages]
        assert "update_display_data" in types and "execute_result" in types
        assert not [m for m in messages if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"]

        # the kernel runs as the student's server: in their home, under the hub's prefix kernelspec
        reply, messages = channels.execute("import os; os.getcwd(), r.results_match")
        value = [m for m in messages if m["msg_type"] == "execute_result"][0]["content"]["data"]["text/plain"]
        assert value == repr((hub.home("student1"), True))
    finally:
        channels.close()
        hub.request(f"{server_url.lstrip('/')}api/kernels/{kernel_id}", "DELETE", token=token)


def test_another_students_token_cannot_reach_their_server(hub):
    token1 = hub.log_in("student1")
    token2 = hub.log_in("student2")
    hub.start_server("student1", token1)
    with pytest.raises(urllib.error.HTTPError) as refused:
        hub.request("user/student1/api/kernels", token=token2)
    assert refused.value.code == 403


def test_a_student_logs_in_to_gillabs_lab_and_finds_the_hubs_menu(hub):
    reason = browsers.skip_reason("lab")
    if reason:
        pytest.skip(reason)
    env = jupyter_env(hub.base)
    report = browsers.run_driver(browsers.HUB_LAB, {"url": hub.url, "user": "student2", "password": PASSWORD},
                                 env, hub.base, hub.base, timeout=150, what="the hub's Lab")
    assert report["path"].startswith("/user/student2/lab"), report["path"]
    assert not report["pageErrors"], report["pageErrors"]
    # hub-extension's items, there only when the page config names the hub
    assert {"Hub Control Panel", "Log Out"} <= set(report["fileMenu"]), report["fileMenu"]
    assert report["controlPanel"] == "/hub/home", report["controlPanel"]
    assert "student2" in report["controlPanelText"]


def run_command(*args, cwd, timeout=300):
    env = jupyter_env(cwd, GILLAB_QUICK="1")
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def course(hub):
    """The instructor's lecture 1 released (student version) into every student's home/course."""
    source = os.path.join(hub.base, "source")
    os.makedirs(source)
    shutil.copy(os.path.join(REPO, "notebooks", LECTURE), source)
    released = os.path.join(hub.base, "release")
    done = run_command(GRADE, "release", source, released, cwd=hub.base)
    assert done.returncode == 0, done.stderr
    for name in STUDENTS:
        os.makedirs(os.path.join(hub.home(name), "course"))
        shutil.copy(os.path.join(released, LECTURE), os.path.join(hub.home(name), "course"))
    return nbformat.read(os.path.join(source, LECTURE), as_version=4)


def answer(nb, instructor, grade_ids):
    """The student's notebook with the instructor's solutions typed into the given cells."""
    solutions = {c.metadata.nbgrader["grade_id"]: c.source for c in instructor.cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in grade_ids:
            cell.source = SOLUTION.sub("", solutions[grade_id])
    return nb


def test_students_hand_in_lecture_1_and_the_instructor_grades_both(hub, course):
    path = f"course/{LECTURE}"
    token = hub.log_in("student1")
    server_url = hub.start_server("student1", token)
    kernel_id, channels = start_kernel(hub, server_url, token)
    try:
        # the lecture part (every code cell before the first exercise), magics included
        lecture = hub.read_notebook("student1", token, path)
        first_exercise = next(i for i, c in enumerate(lecture.cells) if c.metadata.get("nbgrader"))
        ran_magics = 0
        for cell in lecture.cells[:first_exercise]:
            if cell.cell_type != "code":
                continue
            reply, messages = channels.execute(cell.source, timeout=180)
            assert reply["status"] == "ok", (cell.source[:80], reply.get("evalue"))
            assert not [m for m in messages if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"]
            ran_magics += "%gil" in cell.source
        assert ran_magics >= 3
    finally:
        channels.close()
        hub.request(f"{server_url.lstrip('/')}api/kernels/{kernel_id}", "DELETE", token=token)

    exercises = [c.metadata.nbgrader["grade_id"] for c in course.cells
                 if c.metadata.get("nbgrader", {}).get("solution")]
    hub.save_notebook("student1", token, path, answer(lecture, course, exercises))
    token2 = hub.log_in("student2")
    hub.start_server("student2", token2)
    partial = answer(hub.read_notebook("student2", token2, path), course, ["ex2-solution"])
    hub.save_notebook("student2", token2, path, partial)

    source, submitted, graded = (os.path.join(hub.base, d) for d in ("source", "submitted", "graded"))
    collected = run_command(GRADE, "collect", os.path.join(hub.base, "home"), submitted,
                            "--source", source, "--path-in-home", "course", cwd=hub.base)
    assert collected.returncode == 0 and "collected 2 notebook(s)" in collected.stdout, collected
    grading = run_command(GRADE, "autograde", submitted, "--source", source, "--out", graded,
                          "--timeout", "120", "--jobs", "2", cwd=hub.base, timeout=600)
    assert grading.returncode == 0, grading.stdout + grading.stderr
    with open(os.path.join(graded, "grades.json")) as f:
        grades = {g["student"]: g for g in json.load(f)["grades"]}
    tests = lambda student: {c["grade_id"]: c["score"] for c in grades[student]["cells"] if c["kind"] == "test"}
    full = grades["student1"]
    assert full["score"] == full["max_score"] > 0, tests("student1")
    points = {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader["points"] for c in course.cells
              if c.metadata.get("nbgrader", {}).get("grade")}
    assert tests("student2") == {grade_id: (points[grade_id] if grade_id == "ex2-tests" else 0)
                                 for grade_id in points}
