"""The single-user image (`make image`: share/container/Containerfile built with buildah from the
package) as Zero to JupyterHub would run it: its file system under bubblewrap as uid 1000 in
/home/jovyan with the image's own environment, a real JupyterHub spawning the image's own
entrypoint and command and serving the Lab, its bundle, the lectures and the kernelspec through
its proxy, and an nbgitpuller link through that hub that pulls lectures from a git repository
into her fresh home and keeps her edits at the next pull."""

import glob
import http.cookiejar
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from debian_root import STUDENT_GID, STUDENT_UID, student_command  # noqa: E402
from loopback import ServerProcess, api_request, free_port, hub_config, jupyter_env, remove, temp_base  # noqa: E402
from test_deb import GILBENCH_CELL, the_deb, control_field  # noqa: E402
import doc_recipes  # noqa: E402
import git_lectures  # noqa: E402
from git_lectures import LECTURES  # noqa: E402

HOME = "/home/jovyan"
GRADE = os.path.join(REPO, "build", "prefix", "bin", "gillab-grade")
GRADING_SOURCE = os.path.join(REPO, "tests", "grading", "fixtures", "source")
HUB_CONFIG = """
# Where the hub starts the command on this machine; inside, she is in the image's home.
c.SimpleLocalProcessSpawner.home_dir_template = "{base}/spawn"
# The image's own entrypoint and command, in its file system as uid 1000 (as a pod would run it);
# no default_url: the image's own (/lab) is under test.
c.Spawner.cmd = {cmd!r}
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
"""


def buildah(*args):
    return subprocess.run(["buildah", *args], capture_output=True, text=True, check=True).stdout.strip()


def image_tag():
    return f"gillab-singleuser:{control_field(the_deb(), 'Version')}"


@pytest.fixture(scope="module")
def image():
    """(the image's mounted file system, its OCI config) in a throwaway working container."""
    if os.geteuid() != 0 or shutil.which("buildah") is None:
        pytest.skip("the image is built and mounted by root's buildah (apt package buildah)")
    tag = image_tag()
    if subprocess.run(["buildah", "inspect", "--type", "image", tag], capture_output=True).returncode != 0:
        pytest.fail(f"no image {tag}: make image")
    config = json.loads(buildah("inspect", "--type", "image", tag))["OCIv1"]["config"]
    container = buildah("from", "--pull-never", tag)
    # buildah's storage is root's alone (mode 0700): the mounted file system is bound again where
    # uid 1000 can reach it.
    reachable = temp_base("gillab-image-")
    os.chmod(reachable, 0o755)
    root = os.path.join(reachable, "root")
    os.mkdir(root)
    try:
        subprocess.run(["mount", "--bind", buildah("mount", container), root], check=True)
        yield root, config
    finally:
        subprocess.run(["umount", root], capture_output=True)
        subprocess.run(["buildah", "umount", container], capture_output=True)
        subprocess.run(["buildah", "rm", container], capture_output=True)
        os.rmdir(root)
        os.rmdir(reachable)


def in_image(root, config, *command, **options):
    """argv running command in the image's file system as its user, with the image's environment
    over the caller's (options: student_command's)."""
    argv = student_command(root, *command, home=HOME, **options)
    settings = []
    for entry in config.get("Env", []):
        name, _, value = entry.partition("=")
        settings += ["--setenv", name, value]
    at = argv.index("--die-with-parent")
    return argv[:at] + settings + argv[at:]


def test_the_image_follows_zero_to_jupyterhubs_conventions_and_holds_no_compiler(image):
    root, config = image
    assert config["User"] == f"{STUDENT_UID}:{STUDENT_GID}"
    assert config["WorkingDir"] == HOME and "8888/tcp" in config["ExposedPorts"]
    assert config["Entrypoint"] == ["/usr/bin/tini", "--"] and config["Cmd"] == ["jupyterhub-singleuser"]
    assert f"HOME={HOME}" in config["Env"] and "JUPYTERHUB_DEFAULT_URL=/lab" in config["Env"]
    home = os.stat(root + HOME)
    assert (home.st_uid, home.st_gid) == (STUDENT_UID, STUDENT_GID)
    for program in ("gcc", "cc", "g++", "c++", "clang", "x86_64-linux-gnu-gcc-12"):
        assert not os.path.lexists(f"{root}/usr/bin/{program}"), program
    for path in ("/usr/bin/jupyterhub-singleuser", "/usr/share/jupyter/kernels/gillab/kernel.json",
                 "/etc/jupyter/jupyter_server_config.d/nbgitpuller.json", "/usr/bin/git", "/usr/bin/tini"):
        assert os.path.exists(root + path), path
    with open(root + "/etc/jupyter/jupyter_server_config.d/gillab_singleuser.json") as f:
        server = json.load(f)["ServerApp"]
    assert (server["port"], server["default_url"]) == (8888, "/lab")


def test_the_images_kernel_runs_a_gilbench_cell_as_uid_1000(image):
    root, config = image
    cells = [GILBENCH_CELL, "import os; print(sorted({row['mode'] for row in r.rows}), r.results_match, os.getuid())"]
    with open(os.path.join(HERE, "kernel_session.py")) as f:
        session_script = f.read()
    run = subprocess.run(in_image(root, config, "/usr/bin/python3", "-", "gillab", json.dumps(cells)),
                         input=session_script, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    session = json.loads(run.stdout)
    assert session["kernel_info"]["implementation"] == "gillab"
    assert session["cells"][0]["reply"]["status"] == "ok", session["cells"][0]["reply"]
    printed = "".join(o["content"].get("text", "") for o in session["cells"][1]["outputs"])
    assert printed.strip() == f"['sequential', 'threads'] True {STUDENT_UID}", session["cells"][1]


def git_as_student(base):
    return ["setpriv", f"--reuid={STUDENT_UID}", f"--regid={STUDENT_GID}", "--clear-groups", "env", f"HOME={base}",
            "git"]


def hub_command(root, config, repo):
    """The image's entrypoint and command as the hub's Spawner.cmd: in the image's file system as
    uid 1000, the hub's environment (its JUPYTERHUB_* variables) under the image's, this machine's
    network (the proxy must reach it), the published repository read-only at /srv/lectures.git."""
    cmd = in_image(root, config, *config["Entrypoint"], *config["Cmd"], keep_env=True, share_net=True)
    at = cmd.index("--die-with-parent")
    # --as-pid-1: the entrypoint (tini) is process 1 of its PID namespace, as in a pod.
    return cmd[:at] + ["--ro-bind", repo, "/srv/lectures.git", "--as-pid-1"] + cmd[at:]


@pytest.fixture(scope="module")
def hub(image):
    root, config = image
    for program in ("/usr/bin/jupyterhub", "/usr/bin/configurable-http-proxy"):
        if not os.path.exists(program):
            pytest.skip(f"{program} is missing (apt package jupyterhub)")
    base = temp_base("gillab-image-hub-")
    os.chmod(base, 0o755)
    repo, work = git_lectures.publish(base, git_as_student(base), owner=(STUDENT_UID, STUDENT_GID))
    os.makedirs(root + "/srv/lectures.git", exist_ok=True)
    env = jupyter_env(base, NODE_PATH="/usr/share/nodejs", CONFIGPROXY_AUTH_TOKEN=uuid.uuid4().hex)
    del env["JUPYTER_PATH"]
    url, common = hub_config(base, "course-password", ["student"])
    config_file = os.path.join(base, "jupyterhub_config.py")
    with open(config_file, "w") as f:
        f.write(common + HUB_CONFIG.format(base=base, cmd=hub_command(root, config, repo)))
    process = ServerProcess("jupyterhub", ["/usr/bin/jupyterhub", "-f", config_file], env, cwd=base)
    try:
        process.wait_for_http(f"{url}hub/api", timeout=60)
        _, token = api_request(f"{url}hub/api/users/student/tokens", None, "POST",
                               {"auth": {"username": "student", "password": "course-password"}})
        token = token["token"]
        api_request(f"{url}hub/api/users/student/server", token, "POST", {})
        deadline = time.monotonic() + 120
        while not api_request(f"{url}hub/api/users/student", token)[1].get("servers", {}).get("", {}).get("ready"):
            assert time.monotonic() < deadline, process.log_tail()
            time.sleep(0.5)
        yield {"hub": url, "url": url + "user/student/", "token": token, "root": root, "work": work, "repo": repo,
               "git": git_as_student(base), "log": process.log_tail}
        api_request(f"{url}hub/api/users/student/server", token, "DELETE")
    finally:
        process.stop()
        remove(base)


def get(hub, path, base=None):
    request = urllib.request.Request((base or hub["url"]) + path, headers={"Authorization": f"token {hub['token']}"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.geturl(), response.read()
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{error.code} for {error.url}; the hub's log:\n{hub['log']()}") from None


def test_a_hub_serves_the_lab_its_bundle_the_lectures_and_the_kernelspec_from_the_image(hub):
    status, where, page = get(hub, "")
    assert status == 200 and urllib.parse.urlparse(where).path == "/user/student/lab", where
    bundle = re.search(rb'(/user/student/[^"\']*bundle[^"\']*\.js)', page)
    assert bundle, page[:2000]
    status, _, code = get(hub, bundle.group(1).decode().lstrip("/"), base=hub["hub"])
    assert status == 200 and len(code) > 10_000
    _, _, listing = get(hub, "api/contents/lectures")
    names = sorted(entry["name"] for entry in json.loads(listing)["content"] if entry["type"] == "notebook")
    assert names == sorted(os.listdir(LECTURES))
    _, _, specs = get(hub, "api/kernelspecs")
    spec = json.loads(specs)["kernelspecs"]["gillab"]
    assert spec["spec"]["argv"][0] == "/usr/bin/python3" and "logo-64x64" in spec["resources"]


def open_in_browser(hub, path):
    """path as a student's browser opens it when she is not logged in: the hub's login form, then
    every redirect (the hub's, her server's OAuth) with the cookies they set."""
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    form = urllib.parse.urlencode({"username": "student", "password": "course-password"}).encode()
    login = hub["hub"] + "hub/login?" + urllib.parse.urlencode({"next": "/" + path})
    try:
        with browser.open(login, data=form, timeout=120) as response:
            return response.status, response.geturl(), response.read()
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{error.code} for {error.url}; the hub's log:\n{hub['log']()}") from None


def test_an_nbgitpuller_link_pulls_the_lectures_into_her_home_and_keeps_her_edits(hub):
    query = {"repo": "file:///srv/lectures.git", "branch": "main", "targetpath": "gil-lectures",
             "urlpath": "lab/tree/gil-lectures"}
    status, where, _ = open_in_browser(hub, "hub/user-redirect/git-pull?" + urllib.parse.urlencode(query))
    assert status == 200 and urllib.parse.urlparse(where).path == "/user/student/git-pull", where
    stream = git_lectures.pull(hub["url"], query, hub["token"])
    assert '"phase": "finished"' in stream, stream[-2000:]
    home = hub["root"] + HOME
    pulled = sorted(glob.glob(os.path.join(home, "gil-lectures", "*.ipynb")))
    assert [os.path.basename(p) for p in pulled] == sorted(os.listdir(LECTURES))
    git_lectures.edit_notebook(pulled[0], "# my own answer")
    with open(pulled[0]) as f:
        edited = f.read()
    git_lectures.push_new_file(hub["git"], hub["work"], "README.md", "Lectures of the course.\n")
    stream = git_lectures.pull(hub["url"], query, hub["token"])
    assert '"phase": "finished"' in stream, stream[-2000:]
    with open(pulled[0]) as f:
        assert f.read() == edited
    assert os.path.exists(os.path.join(home, "gil-lectures", "README.md"))


def test_the_documented_values_yaml_fits_the_image(image):
    root, config = image
    single = yaml.safe_load(doc_recipes.block("yaml", "singleuser:"))["singleuser"]
    assert f"{single['image']['name'].rsplit('/', 1)[-1]}:{single['image']['tag']}" == image_tag()
    assert f"{single['uid']}:{single['fsGid']}" == config["User"]
    with open(root + "/etc/jupyter/jupyter_server_config.d/gillab_singleuser.json") as f:
        assert single["defaultUrl"] == json.load(f)["ServerApp"]["default_url"]
    assert single["cpu"]["limit"] >= 2 > single["cpu"]["guarantee"]


def test_the_documented_post_start_hook_pulls_the_lectures_and_keeps_her_edits_at_the_next_start(image, hub):
    root, config = image
    command = yaml.safe_load(doc_recipes.block("yaml", "singleuser:"))["singleuser"]["lifecycleHooks"]
    command = [arg.replace("REPO_URL", "file:///srv/lectures.git") for arg in command["postStart"]["exec"]["command"]]
    fresh = temp_base("gillab-image-home-")
    try:
        os.chown(fresh, STUDENT_UID, STUDENT_GID)
        argv = in_image(root, config, *command)
        at = argv.index("--die-with-parent")
        argv = argv[:at] + ["--bind", fresh, HOME, "--ro-bind", hub["repo"], "/srv/lectures.git"] + argv[at:]
        subprocess.run(argv, check=True, capture_output=True, timeout=120)
        pulled = sorted(glob.glob(os.path.join(fresh, "gil-lectures", "*.ipynb")))
        assert [os.path.basename(p) for p in pulled] == sorted(os.listdir(LECTURES))
        git_lectures.edit_notebook(pulled[-1], "# my answer, before a restart")
        with open(pulled[-1]) as f:
            edited = f.read()
        subprocess.run(argv, check=True, capture_output=True, timeout=120)
        with open(pulled[-1]) as f:
            assert f.read() == edited
    finally:
        remove(fresh)


def test_the_image_grades_as_a_dask_worker_beside_the_hub(image, tmp_path):
    """docs/instructors.md's scheduler and worker commands: the scheduler here, the worker in the
    image's file system as uid 1000, gillab-grade sending it a submission to grade in its own sandbox."""
    root, config = image
    port = free_port()
    commands = [line for line in doc_recipes.block("sh", "dask-worker").splitlines()
                if line and not line.startswith("#")]
    scheduler_cmd, worker_cmd = (line.replace("8786", str(port)).replace("SCHEDULER", "127.0.0.1") for line in commands)
    subs = tmp_path / "submitted" / "ann"
    subs.mkdir(parents=True)
    shutil.copy(os.path.join(GRADING_SOURCE, "ps1.ipynb"), subs)  # the instructor's answers: full marks
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    scheduler = subprocess.Popen(scheduler_cmd.split() + ["--host", "127.0.0.1", "--no-dashboard"], cwd=tmp_path,
                                 **quiet)
    worker = subprocess.Popen(in_image(root, config, "/bin/sh", "-c", worker_cmd, share_net=True), **quiet)
    try:
        grade = subprocess.run([GRADE, "autograde", str(tmp_path / "submitted"), "--source", GRADING_SOURCE,
                                "--out", str(tmp_path / "graded"), "--scheduler", f"tcp://127.0.0.1:{port}",
                                "--sandbox", "on"], capture_output=True, text=True, timeout=600)
    finally:
        for process in (worker, scheduler):
            process.terminate()
            process.wait(timeout=30)
    assert grade.returncode == 0, grade.stdout[-2000:] + grade.stderr[-3000:]
    with open(tmp_path / "graded" / "grades.json") as f:
        (row,) = json.load(f)["grades"]
    assert (row["student"], row["score"], row["status"], row["sandbox"]) == ("ann", 6, "graded", "bubblewrap"), row
