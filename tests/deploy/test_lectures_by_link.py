"""Lectures handed out by link, as docs/instructors.md says: the student versions published in a
git repository with its commands, the link made with its command, and the link's pull (Debian's
nbgitpuller in a jupyter_server) into a fresh home, then again after a new commit: her edit
stays, the new file arrives."""

import os
import subprocess
import sys
import urllib.parse

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import doc_recipes  # noqa: E402
import git_lectures  # noqa: E402
from loopback import JupyterServer, clean_path  # noqa: E402

PREFIX = os.path.join(REPO, "build", "prefix")
HUB = "https://hub.test"
GIT_ENV = {"GIT_AUTHOR_NAME": "Instructor", "GIT_AUTHOR_EMAIL": "instructor@localhost",
           "GIT_COMMITTER_NAME": "Instructor", "GIT_COMMITTER_EMAIL": "instructor@localhost"}


def run_block(block, cwd, **env):
    """A docs block run by sh as written, the package's install path replaced by the checkout's."""
    script = block.replace("/usr/share/gillab/notebooks", os.path.join(REPO, "notebooks"))
    environ = dict(os.environ, PATH=os.path.join(PREFIX, "bin") + os.pathsep + clean_path(), **GIT_ENV, **env)
    return subprocess.run(["sh", "-ec", script], cwd=cwd, env=environ, capture_output=True, text=True,
                          timeout=300, check=True).stdout


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    if not os.path.exists("/etc/jupyter/jupyter_server_config.d/nbgitpuller.json"):
        pytest.skip("nbgitpuller is not installed (apt package python3-nbgitpuller)")
    base = tmp_path_factory.mktemp("lectures-by-link")
    repo = str(base / "lectures.git")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", repo], check=True)
    run_block(doc_recipes.block("sh", "git push"), str(base), REPO=repo)
    return base, repo


@pytest.fixture(scope="module")
def server():
    server = JupyterServer("server")
    yield server
    server.stop()


def test_the_documented_command_makes_a_link_to_the_hubs_puller(published):
    _, repo = published
    link = run_block(doc_recipes.block("sh", "git-pull?"), REPO, HUB=HUB, REPO=repo, BRANCH="main").strip()
    parts = urllib.parse.urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{HUB}/hub/user-redirect/git-pull"
    query = dict(urllib.parse.parse_qsl(parts.query))
    assert query == {"repo": repo, "branch": "main", "targetpath": "gil-lectures", "urlpath": "lab/tree/gil-lectures"}


def test_the_link_pulls_the_lectures_into_a_fresh_home_and_a_later_pull_keeps_her_edits(published, server):
    base, repo = published
    link = run_block(doc_recipes.block("sh", "git-pull?"), REPO, HUB=HUB, REPO=repo, BRANCH="main").strip()
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))
    assert os.listdir(server.root) == []
    stream = git_lectures.pull(server.url, query, server.token)
    assert '"phase": "finished"' in stream, stream[-2000:]
    folder = os.path.join(server.root, "gil-lectures")
    pulled = sorted(name for name in os.listdir(folder) if name.endswith(".ipynb"))
    assert pulled == sorted(os.listdir(os.path.join(REPO, "notebooks")))
    mine = os.path.join(folder, pulled[0])
    git_lectures.edit_notebook(mine, "# my own answer")
    with open(mine) as f:
        edited = f.read()
    work = str(base / "gil-lectures")
    git_lectures.push_new_file(["git"], work, "README.md", "Lectures of the course.\n", remote=repo)
    stream = git_lectures.pull(server.url, query, server.token)
    assert '"phase": "finished"' in stream, stream[-2000:]
    with open(mine) as f:
        assert f.read() == edited
    assert os.path.exists(os.path.join(folder, "README.md"))
