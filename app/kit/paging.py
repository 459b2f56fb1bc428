"""Cursor pages: what a list answers beyond its page, the same way for every list.

A page holds ``limit`` items and, when more follow, ``next``: an opaque cursor (the last
item's place in the list's order, as base64url JSON) that the next call sends back as
``cursor``, also given as ``Link: <...>; rel="next"``. Keyset paging: the next page is a
range of an index after the cursor, never an OFFSET, so a page costs the same however deep
it is.

A cursor comes back from the client, who may have made it up: it is read into typed values
before any query (``decode_cursor``, by the list's own ``Cursor`` shape: integers that fit
their column, times with their zone, ids of the server's form), and anything else is a 422,
never a statement the database refuses.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from fastapi import Query, Request, Response
from pydantic import AfterValidator, AwareDatetime, Field, TypeAdapter, ValidationError

from app.kit.errors import ValidationProblem
from app.kit.ids import ID_PATTERN
from app.kit.ratelimit import RATE_LIMIT_HEADERS

T = TypeVar("T")

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


# The values a cursor may hold: an INTEGER column's (PostgreSQL's 32 bits), a time with its
# zone (a naive one cannot be set against the stored ones), a row's id.
Int32 = Annotated[int, Field(strict=True, ge=-(2**31), le=2**31 - 1)]
Count32 = Annotated[int, Field(strict=True, ge=0, le=2**31 - 1)]
RowId = Annotated[str, Field(strict=True, pattern=ID_PATTERN)]


def _in_utc(value: datetime) -> datetime:
    try:
        return value.astimezone(UTC)
    except OverflowError:  # year 1 east of Greenwich, year 9999 west of it
        raise ValueError("out of range") from None


UtcTime = Annotated[AwareDatetime, AfterValidator(_in_utc)]


def decode_cursor(cursor: str, shape: TypeAdapter[T]) -> T:
    """The values ``cursor`` holds, as ``shape`` (a list's own, a tuple of the types above:
    ``TypeAdapter(tuple[Count32])``) types them; a 422 for a cursor this server did not
    give."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        return shape.validate_json(raw)
    except (ValueError, binascii.Error, ValidationError):
        raise ValidationProblem(
            "cursor: not a cursor this server gave", loc=("query", "cursor")
        ) from None


def link_next(request: Request, response: Response, cursor: str | None) -> None:
    """``Link: <this URL with cursor=...>; rel="next"`` when there is a next page."""
    if cursor is not None:
        url = request.url.include_query_params(cursor=cursor)
        response.headers["Link"] = f'<{url.path}?{url.query}>; rel="next"'
