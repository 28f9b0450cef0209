"""gillab's JupyterLab 4 front end, served by Debian's jupyterlab_server on jupyter_server 1.23.

JupyterLab's own Python package is not packaged for Debian: this app serves the bundle built
from lab/ with npm (build/lab/static) through jupyterlab_server's handlers, with the plugins'
settings schemas and the light theme copied beside it (build/lab/schemas, build/lab/themes).

    /usr/bin/python3 lab/gillab_lab.py --ServerApp.root_dir=notebooks --ip=127.0.0.1
"""

import os
import sys

from jupyter_core.paths import jupyter_config_dir
from jupyterlab_server import LabServerApp
from traitlets import default

HERE = os.path.dirname(os.path.abspath(__file__))
BUILT = os.path.join(os.path.dirname(HERE), "build", "lab")
sys.path.insert(0, HERE)
import server2_api  # noqa: E402


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

    def initialize_handlers(self):
        super().initialize_handlers()
        self.handlers.extend(server2_api.handlers)

    @default("app_version")
    def _app_version(self):
        return "0.1.0"

    @default("static_dir")
    def _static_dir(self):
        return os.path.join(BUILT, "static")

    @default("schemas_dir")
    def _schemas_dir(self):
        return os.path.join(BUILT, "schemas")

    @default("themes_dir")
    def _themes_dir(self):
        return os.path.join(BUILT, "themes")

    @default("templates_dir")
    def _templates_dir(self):
        return os.path.join(HERE, "templates")

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
