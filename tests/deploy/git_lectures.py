"""The lectures as an instructor publishes them for nbgitpuller links: a bare git repository of
the student versions and a working copy that pushes to it, every git command run through the
caller's `git` argv (another user's, when the puller runs as uid 1000); a student's edit; and one
pull through a server's nbgitpuller API, read to its end."""

import json
import os
import shutil
import subprocess
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LECTURES = os.path.join(REPO, "build", "prefix", "share", "gillab", "lectures")
GIT_IDENTITY = ["-c", "user.name=Instructor", "-c", "user.email=instructor@localhost"]


def commit_all(git, work, message):
    subprocess.run([*git, "-C", work, "add", "."], check=True)
    subprocess.run([*git, *GIT_IDENTITY, "-C", work, "commit", "-q", "-m", message], check=True)


def publish(base, git, owner=None):
    """(bare repository, working copy) of the released lectures under base, on branch main; with
    owner (uid, gid), base and both belong to that user."""
    repo, work = os.path.join(base, "lectures.git"), os.path.join(base, "lectures-work")
    shutil.copytree(LECTURES, work)
    if owner is not None:
        subprocess.run(["chown", "-R", f"{owner[0]}:{owner[1]}", base], check=True)
    subprocess.run([*git, "init", "-q", "-b", "main", work], check=True)
    commit_all(git, work, "lectures")
    subprocess.run([*git, "clone", "-q", "--bare", work, repo], check=True)
    subprocess.run([*git, "-C", work, "remote", "add", "origin", repo], check=True)
    return repo, work


def push_new_file(git, work, name, text, remote="origin"):
    """The instructor's next commit: a new file, pushed to branch main of remote."""
    with open(os.path.join(work, name), "w") as f:
        f.write(text)
    commit_all(git, work, f"add {name}")
    subprocess.run([*git, "-C", work, "push", "-q", remote, "main"], check=True)


def edit_notebook(path, marker):
    """Her edit: marker as the first line of the notebook's first code cell."""
    with open(path) as f:
        nb = json.load(f)
    code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    code["source"] = f"{marker}\n" + "".join(code["source"])
    with open(path, "w") as f:
        json.dump(nb, f, indent=1)


def pull(server_url, link_query, token):
    """What an nbgitpuller link's page does: its event stream (git-pull/api), read to the end."""
    request = urllib.request.Request(f"{server_url}git-pull/api?{urllib.parse.urlencode(link_query)}",
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=180) as response:
        return response.read().decode()
