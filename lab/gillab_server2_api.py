"""The two jupyter_server 2 endpoints JupyterLab 4 calls that jupyter_server 1.23 lacks.

Without them Lab logs a 404 for /api/me and retries /api/events/subscribe every few seconds.
"""

from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.base.zmqhandlers import WebSocketMixin
from tornado import web
from tornado.websocket import WebSocketHandler


class IdentityHandler(APIHandler):
    """GET /api/me: who is logged in (the name only: 1.23 has no identity provider)."""

    @web.authenticated
    def get(self):
        user = self.current_user
        # JupyterHub's single-user server gives a dict, a token login a plain name.
        name = user.get("name", "") if isinstance(user, dict) else str(user or "")
        name = name or "anonymous"
        self.finish({
            "identity": {
                "username": name,
                "name": name,
                "display_name": name,
                "initials": name[:2].upper(),
                "avatar_url": None,
                "color": None,
            },
            "permissions": {},
        })


class EventsHandler(WebSocketMixin, WebSocketHandler, JupyterHandler):
    """/api/events/subscribe: an open, silent event stream (1.23 emits no events)."""

    def set_default_headers(self):
        # JupyterHandler's headers do not apply to a websocket upgrade.
        pass

    async def get(self, *args, **kwargs):
        if self.get_current_user() is None:
            raise web.HTTPError(403)
        await super().get(*args, **kwargs)

    def on_message(self, message):
        pass


handlers = [
    (r"/api/me", IdentityHandler),
    (r"/api/events/subscribe", EventsHandler),
]
