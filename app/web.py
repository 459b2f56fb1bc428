"""The reference web client (web/): its page at ``/`` and its files under ``/web/``.

Plain static files that use only the public /v1 API. Neither route is part of the
OpenAPI schema, and nothing under /v1 is touched: unknown API paths keep their
problem+json 404s.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app.kit.middleware import WithHeaders

WEB_DIR = Path(__file__).resolve().parents[1] / "web"

# The page talks only to its own origin; nothing inline, nothing from elsewhere.
PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
}


def mount_web_client(app: FastAPI, directory: Path = WEB_DIR) -> None:
    """Serve ``directory`` (when it is there: a deployment may leave it out)."""
    index = directory / "index.html"
    if not index.is_file():
        return

    # HEAD too: uptime checks and link previews ask for the page without its body.
    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def web_client() -> FileResponse:
        return FileResponse(index, media_type="text/html", headers=PAGE_HEADERS)

    app.mount("/web", WithHeaders(StaticFiles(directory=directory), PAGE_HEADERS), name="web")
