"""The interactive docs, /docs (Swagger UI) and /redoc (ReDoc), with their own assets.

FastAPI's pages load their scripts and styles from a CDN, so they stay blank offline or
behind a strict network. Here the same pages load them from ``/docs/assets/``: the files
that the ``fastapi-offline`` package ships (Swagger UI's bundle and CSS, ReDoc's standalone
script, a favicon), served as static files. Nothing on either page comes from elsewhere:
no CDN, no Google Fonts, no validator badge. The OAuth2 redirect page is left out: the
API's tokens are bearer tokens, not OAuth2.

Both pages and their assets carry a Content-Security-Policy, as the web client's do: the
page's own origin alone, its one inline script allowed by its hash (Swagger UI's start),
inline styles (both UIs style their elements from script), images and fonts as data: URLs,
ReDoc's search worker from a blob: URL; and ``nosniff``. tests/web's browser run shows
both pages render under it, without a violation.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from app.kit.middleware import WithHeaders

ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"
ASSETS_URL = "/docs/assets"
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def docs_headers(html: bytes = b"") -> dict[str, str]:
    """The security headers of a docs page (``html``: its inline scripts are allowed by
    their hashes) or of an asset."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode() + "'"
        for script in _INLINE_SCRIPT.findall(html)
    )
    return {
        "Content-Security-Policy": (
            f"default-src 'self'; script-src 'self'{' ' + hashes if hashes else ''}; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
            "connect-src 'self'; worker-src 'self' blob:; object-src 'none'; "
            "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        ),
        "X-Content-Type-Options": "nosniff",
    }


def _with_headers(page: HTMLResponse) -> HTMLResponse:
    page.headers.update(docs_headers(bytes(page.body)))
    return page


def install_docs(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Serve Swagger UI at ``docs_url`` and ReDoc at ``redoc_url``, the app's spec in each.

    The app is made with ``docs_url=None, redoc_url=None`` (FastAPI's own pages off) and an
    ``openapi_url``; paths are relative to the ``root_path`` a proxy may set."""
    openapi_url = app.openapi_url
    if openapi_url is None:  # pragma: no cover - create_app installs docs with the spec only
        raise ValueError("the docs need the spec: give the app an openapi_url")
    app.mount(
        ASSETS_URL,
        WithHeaders(StaticFiles(directory=ASSETS_DIR), docs_headers()),
        name="docs-assets",
    )

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            oauth2_redirect_url=None,
            # No badge fetched from validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None},
        )
        return _with_headers(page)

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = get_redoc_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            with_google_fonts=False,
        )
        return _with_headers(page)
