"""Health and readiness, outside /v1."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.ops.migrations import migration_status

router = APIRouter(tags=["operations"])


@router.get("/healthz", operation_id="get_health", summary="The process answers")
async def healthz() -> dict[str, str]:
    """Liveness: the process is up and answering. It touches no database."""
    return {"status": "ok"}


@router.get(
    "/readyz",
    operation_id="get_readiness",
    summary="The database answers and its migrations are at head",
    responses={503: {"description": "Not ready; the body says why"}},
)
async def readyz(request: Request) -> Any:
    """Readiness: the database answers and its migrations are at head; 503 with the reason
    otherwise.
    """
    database = request.app.state.database
    ok, reason, current = await migration_status(
        (database.writer, database.reader), database.timeout_s
    )
    body = {"status": "ok" if ok else "unavailable", "reason": reason, "revision": current}
    return JSONResponse(body, status_code=200 if ok else 503)
