"""Credentials: the bearer secret a request carries, and how secrets are kept.

Secrets (game tokens, later player keys) are long random strings shown once; only their
SHA-256 is stored, and a presented secret is compared with it in constant time. Which
resource a secret opens is each domain's business (``app.games.access``): this module only
reads the ``Authorization: Bearer`` header and does the arithmetic.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.kit.errors import UnauthorizedProblem

_bearer = HTTPBearer(
    auto_error=False,
    description="A game's token (from create_game), or a player key (from create_player)",
)


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    """Whether ``secret`` hashes to ``stored_hash``, in time independent of where they
    differ."""
    return hmac.compare_digest(hash_secret(secret), stored_hash)


# The Authorization header as the security scheme reads it (None without a bearer).
BearerCredentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def bearer_of(credentials: HTTPAuthorizationCredentials | None) -> str:
    """The bearer secret, or a 401 problem without one."""
    if credentials is None or not credentials.credentials:
        raise UnauthorizedProblem(
            "this call needs a credential: Authorization: Bearer <the game's token or the "
            "player's key>"
        )
    return credentials.credentials


async def get_bearer(credentials: BearerCredentials) -> str:
    return bearer_of(credentials)


async def get_optional_bearer(credentials: BearerCredentials) -> str | None:
    return credentials.credentials if credentials is not None and credentials.credentials else None


BearerDep = Annotated[str, Depends(get_bearer)]
OptionalBearerDep = Annotated[str | None, Depends(get_optional_bearer)]
