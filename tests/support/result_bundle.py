"""The MIME type a magic's figures travel under in its result bundle (magics/render/render.hpp):
gillab's own, since stock JupyterLab would show application/json first, as a JSON tree."""

RESULT_MIME = "application/vnd.gillab.result+json"
