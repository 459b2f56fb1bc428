"""The time, as routes see it: ``app.state.clock`` (UTC now by default), so that tests
move a day's boundary without sleeping or patching."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request

Clock = Callable[[], datetime]


async def get_clock(request: Request) -> Clock:
    clock: Clock = request.app.state.clock
    return clock


ClockDep = Annotated[Clock, Depends(get_clock)]
