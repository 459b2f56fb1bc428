"""Ids of rows a client names (games, players): random, unguessable, URL-safe.

An id is ``secrets.token_urlsafe(16)``: 22 characters of the URL-safe base64 alphabet.
``is_id`` admits up to ``MAX_ID_LENGTH`` of them (room for longer ids later) and nothing
else, and every route checks it before a query: a string that cannot be an id is a 404
at once, and never reaches the database (a NUL in it was a 500 on PostgreSQL).
"""

from __future__ import annotations

import re
import secrets

MAX_ID_LENGTH = 32
_ID_BODY = rf"[A-Za-z0-9_-]{{1,{MAX_ID_LENGTH}}}"
ID_PATTERN = rf"^{_ID_BODY}$"  # for pydantic, whose "$" is the end of the text
_ID = re.compile(_ID_BODY)


def new_id() -> str:
    return secrets.token_urlsafe(16)


def is_id(value: str) -> bool:
    return _ID.fullmatch(value) is not None
