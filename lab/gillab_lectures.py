"""The student's own copies of the lectures, and a fresh copy of one on request.

The released lectures (`gillab-grade release`'s output, installed read-only) are copied into a
folder of the student's own under the server's root the first time her server starts; a copy she
already has is never overwritten. Resetting a lecture moves her copy aside (nothing she wrote is
lost) and puts a fresh one in its place:

    GET  /gillab/api/lectures                 the lectures, and whether her copy exists
    POST /gillab/api/lectures/reset {"path"}  a fresh copy at path (relative to the server's root);
                                              replies with where the old one went
"""

import datetime
import json
import os
import shutil

from jupyter_server.base.handlers import APIHandler
from tornado import web

PREVIOUS = "previous"  # where reset copies go, inside the student's lectures folder


def released_files(source):
    """The released lectures' file names, notebooks and the files beside them."""
    if not source or not os.path.isdir(source):
        return []
    return sorted(name for name in os.listdir(source)
                  if not name.startswith(".") and os.path.isfile(os.path.join(source, name)))


def copy_missing(source, folder):
    """Copies each released file the student's folder lacks; returns the names copied."""
    os.makedirs(folder, exist_ok=True)
    copied = []
    for name in released_files(source):
        target = os.path.join(folder, name)
        if not os.path.lexists(target):
            shutil.copyfile(os.path.join(source, name), target)
            copied.append(name)
    return copied


def reset(source, folder, name):
    """A fresh copy of lecture `name` in folder; the student's copy moves to folder/previous/.
    Returns the moved copy's path relative to folder, or None if she had none."""
    if name not in released_files(source):
        raise KeyError(name)
    target, moved = os.path.join(folder, name), None
    if os.path.lexists(target):
        stem, ext = os.path.splitext(name)
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
        moved = os.path.join(PREVIOUS, f"{stem}-{stamp}{ext}")
        os.makedirs(os.path.join(folder, PREVIOUS), exist_ok=True)
        os.replace(target, os.path.join(folder, moved))
    shutil.copyfile(os.path.join(source, name), target)
    return moved


class _LecturesHandler(APIHandler):
    def initialize(self, source, folder):
        # folder: relative to the server's root (what the contents API and the front end use)
        self.source, self.folder = source, folder

    def _folder_on_disk(self):
        return os.path.join(self.settings["server_root_dir"], self.folder)


class ListHandler(_LecturesHandler):
    @web.authenticated
    def get(self):
        on_disk = self._folder_on_disk()
        self.finish({"folder": self.folder, "lectures": [
            {"name": name, "path": f"{self.folder}/{name}",
             "copied": os.path.lexists(os.path.join(on_disk, name))}
            for name in released_files(self.source)]})


class ResetHandler(_LecturesHandler):
    @web.authenticated
    def post(self):
        try:
            path = json.loads(self.request.body or b"{}")["path"]
        except (ValueError, KeyError, TypeError):
            raise web.HTTPError(400, 'expected a JSON body {"path": "<lectures folder>/<lecture>"}')
        folder, name = os.path.split(path.strip("/"))
        if folder != self.folder:
            raise web.HTTPError(400, f"{path} is not in the lectures folder {self.folder}/")
        try:
            moved = reset(self.source, self._folder_on_disk(), name)
        except KeyError:
            raise web.HTTPError(404, f"{name} is not a released lecture")
        self.finish({"path": path, "previous": f"{self.folder}/{moved}" if moved else None})


def handlers(source, folder):
    options = {"source": source, "folder": folder}
    return [(r"/gillab/api/lectures", ListHandler, options),
            (r"/gillab/api/lectures/reset", ResetHandler, options)]
