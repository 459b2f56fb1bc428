"""Cursor pages: what a list answers beyond its page, the same way for every list.

A page holds ``limit`` items and, when more follow, ``next``: an opaque cursor (the last
item's place in the list's order, as base64url JSON) that the next call sends back as
``cursor``, also given as ``Link: <...>; rel="next"``. A cursor the server did not give is
a 422. Keyset paging: the next page is a range of an index after the cursor, never an
OFFSET, so a page costs the same however deep it is.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Annotated, Any

from fastapi import Query, Request, Response

from app.kit.errors import ValidationProblem
from app.kit.ratelimit import RATE_LIMIT_HEADERS

# The answer of a paged, rate-limited list, in the OpenAPI.
PAGE_HEADERS: dict[str, Any] = {
    "headers": {
        **RATE_LIMIT_HEADERS,
        "Link": {
            "description": 'The next page: <url>; rel="next" (absent on the last)',
            "schema": {"type": "string"},
        },
    }
}


# The query parameter of a paged list: the ``next`` of the page before.
CursorParam = Annotated[
    str | None,
    Query(
        max_length=300,
        description="The next page: the previous page's next (also in its Link header); "
        "leave it out for the first page",
    ),
]


def encode_cursor(place: list[Any]) -> str:
    raw = json.dumps(place, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, size: int) -> list[Any]:
    """The ``size`` values a cursor holds; a 422 for one this server did not give."""
    try:
        place = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error):
        place = None
    if not isinstance(place, list) or len(place) != size:
        raise ValidationProblem("cursor: not a cursor this server gave", loc=("query", "cursor"))
    return place


def link_next(request: Request, response: Response, cursor: str | None) -> None:
    """``Link: <this URL with cursor=...>; rel="next"`` when there is a next page."""
    if cursor is not None:
        url = request.url.include_query_params(cursor=cursor)
        response.headers["Link"] = f'<{url.path}?{url.query}>; rel="next"'
