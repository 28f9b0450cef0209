"""gillab's JupyterLab 4 front end, served by Debian's jupyterlab_server on jupyter_server 1.23.

JupyterLab's own Python package is not packaged for Debian: this app serves the bundle built
from lab/ with npm (static/) through jupyterlab_server's handlers, with the plugins' settings
schemas and the themes copied beside it (schemas/, themes/). From a checkout those are in
build/lab and the released lectures in build/prefix/share/gillab/lectures; installed (this file
in PREFIX/lib/gillab/python), in PREFIX/share/gillab/lab and PREFIX/share/gillab/lectures.

    /usr/bin/python3 lab/gillab_lab.py --ServerApp.root_dir=$HOME/gillab --ip=127.0.0.1

Every kernel the server starts (the stock Python 3 kernel too) finds the gillab package, so
`%load_ext gillab` works there; each student works on copies of her own (gillab_lectures).
"""

import os
import sys

from jupyter_core.paths import jupyter_config_dir
from jupyterlab_server import LabServerApp
from traitlets import Unicode, default

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gillab_lectures  # noqa: E402
import gillab_server2_api  # noqa: E402

# A checkout has lab/templates beside this file; an installation has PREFIX/share/gillab.
CHECKOUT = os.path.isdir(os.path.join(HERE, "templates"))
if CHECKOUT:
    ASSETS = os.path.join(os.path.dirname(HERE), "build", "lab")
    TEMPLATES = os.path.join(HERE, "templates")
    SHARE = os.path.join(os.path.dirname(HERE), "build", "prefix", "share", "gillab")
else:
    SHARE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "share", "gillab")
    ASSETS = os.path.join(SHARE, "lab")
    TEMPLATES = os.path.join(ASSETS, "templates")


def _jupyter_server_extension_points():
    return [{"module": "gillab_lab", "app": GillabLab}]


class GillabLab(LabServerApp):
    name = "gillab_lab"
    app_name = "gillab Lab"
    extension_url = "/lab"
    # The course's server runs this app alone (no nbclassic /tree pages mixed in).
    load_other_extensions = False

    def initialize_settings(self):
        super().initialize_settings()
        # Under JupyterHub's single-user server, hub-extension adds its File menu items (Hub
        # Control Panel, Log Out) only when the page config names the hub, as JupyterLab's own
        # app does; jupyterlab_server alone leaves that out.
        settings = self.settings  # the server's, passed back to it after this
        if "hub_prefix" in settings:
            settings.setdefault("page_config_data", {}).update({
                "hubPrefix": settings["hub_prefix"],
                "hubHost": settings.get("hub_host", ""),
                "hubUser": settings.get("user", ""),
                "hubServerName": getattr(self.serverapp, "server_name", ""),
            })

    lectures_source = Unicode(os.path.join(SHARE, "lectures"), config=True,
                              help="The released lectures (gillab-grade release's output) students copy")
    lectures_folder = Unicode("lectures", config=True,
                              help="The student's folder of lecture copies, relative to the server's root; "
                                   "empty: no copies")

    def initialize_handlers(self):
        super().initialize_handlers()
        self.handlers.extend(gillab_server2_api.handlers)
        if self.lectures_folder:
            root = self.serverapp.root_dir
            copied = gillab_lectures.copy_missing(self.lectures_source, os.path.join(root, self.lectures_folder))
            if copied:
                self.log.info("gillab: copied %d lecture(s) into %s", len(copied), self.lectures_folder)
            self.handlers.extend(gillab_lectures.handlers(self.lectures_source, self.lectures_folder))
        self._kernels_find_gillab()

    def _kernels_find_gillab(self):
        """Puts the folder the gillab kernelspec runs from on PYTHONPATH for every kernel this server
        starts, so a stock IPython kernel can `%load_ext gillab` (one place says where it is)."""
        try:
            spec = self.serverapp.kernel_spec_manager.get_kernel_spec("gillab")
        except Exception:  # no gillab kernelspec: nothing to add
            return
        folder = spec.env.get("PYTHONPATH", "")
        paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        if folder and folder not in paths:
            os.environ["PYTHONPATH"] = os.pathsep.join([folder] + paths)

    @default("app_version")
    def _app_version(self):
        return "0.1.0"

    @default("static_dir")
    def _static_dir(self):
        return os.path.join(ASSETS, "static")

    @default("schemas_dir")
    def _schemas_dir(self):
        return os.path.join(ASSETS, "schemas")

    @default("themes_dir")
    def _themes_dir(self):
        return os.path.join(ASSETS, "themes")

    @default("templates_dir")
    def _templates_dir(self):
        return TEMPLATES

    # A user's settings and workspaces survive rebuilds: they live in the Jupyter config folder.
    @default("user_settings_dir")
    def _user_settings_dir(self):
        return os.path.join(jupyter_config_dir(), "gillab-lab", "user-settings")

    @default("workspaces_dir")
    def _workspaces_dir(self):
        return os.path.join(jupyter_config_dir(), "gillab-lab", "workspaces")


main = GillabLab.launch_instance

if __name__ == "__main__":
    # The server imports the extension by module name; make that name this very module.
    sys.modules["gillab_lab"] = sys.modules["__main__"]
    main()
