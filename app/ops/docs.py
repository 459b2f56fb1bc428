"""The interactive docs, /docs (Swagger UI) and /redoc (ReDoc), with their own assets.

FastAPI's pages load their scripts and styles from a CDN, so they stay blank offline or
behind a strict network. Here the same pages load them from ``/docs/assets/``: the files
that the ``fastapi-offline`` package ships (Swagger UI's bundle and CSS, ReDoc's standalone
script, a favicon), served as static files. Nothing on either page comes from elsewhere:
no CDN, no Google Fonts, no validator badge. The OAuth2 redirect page is left out: the
API's tokens are bearer tokens, not OAuth2.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"
ASSETS_URL = "/docs/assets"


def install_docs(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Serve Swagger UI at ``docs_url`` and ReDoc at ``redoc_url``, the app's spec in each.

    The app is made with ``docs_url=None, redoc_url=None`` (FastAPI's own pages off) and an
    ``openapi_url``; paths are relative to the ``root_path`` a proxy may set."""
    openapi_url = app.openapi_url
    if openapi_url is None:  # pragma: no cover - create_app installs docs with the spec only
        raise ValueError("the docs need the spec: give the app an openapi_url")
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS_DIR), name="docs-assets")

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            oauth2_redirect_url=None,
            # No badge fetched from validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            with_google_fonts=False,
        )
