"""Server limits: request size, statement timeout, and the queue of statements waiting to run."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from embucket_py.errors import SnowflakeError


class StatementTimeout(SnowflakeError):
    """https://docs.snowflake.com/en/sql-reference/parameters#statement-timeout-in-seconds"""

    code = 630
    sqlstate = "57014"


def statement_timeout(seconds: int) -> StatementTimeout:
    return StatementTimeout(
        f"Statement reached its statement or warehouse timeout of {seconds} second(s) and was canceled."
    )


class QueueFull(SnowflakeError):
    code = 100001
    sqlstate = "53000"  # insufficient resources


# Snowflake's largest STATEMENT_TIMEOUT_IN_SECONDS: 7 days.
MAX_STATEMENT_TIMEOUT = 604800


def timeout_seconds(*values: Any) -> int:
    """The first STATEMENT_TIMEOUT_IN_SECONDS value given (statement, then session); 0 = none."""
    for value in values:
        if value is None or value == "":
            continue
        try:
            return min(max(int(value), 0), MAX_STATEMENT_TIMEOUT)
        except (TypeError, ValueError, OverflowError):
            return 0
    return 0


class RequestSizeLimit:
    """ASGI middleware: bodies over `max_bytes` get 413 with a Snowflake error envelope.

    Checks the declared Content-Length first, then counts the bytes of bodies that arrive
    without one (chunked), so neither form can make the server buffer more than the limit.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, exempt: tuple[str, ...] = ()) -> None:
        self.app = app
        self.max_bytes = max_bytes
        # Paths whose handlers stream the body to storage (stage file uploads): not buffered here.
        self.exempt = exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.max_bytes <= 0 or scope["path"].startswith(self.exempt):
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        try:
            too_big = int(declared) > self.max_bytes if declared else False
        except ValueError:
            too_big = False
        if too_big:
            await self._drain(receive)
            await self._refuse(send)
            return
        if declared:
            await self.app(scope, receive, send)  # the server holds the body to its declared length
            return
        # No declared length (chunked): read up to the limit here, then hand the body on.
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.max_bytes:
                chunks.clear()
                if message.get("more_body", False):
                    await self._drain(receive)
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _drain(receive: Receive) -> None:
        """Reads and drops the rest of the body: a client still sending would otherwise see a
        broken pipe (and retry) instead of reading the 413."""
        while True:
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                return

    async def _refuse(self, send: Send) -> None:
        limit_mb = self.max_bytes // (1024 * 1024)
        message = f"Request body exceeds the maximum size of {limit_mb} MB accepted by this server."
        body = json.dumps(
            {
                "success": False,
                "code": "390001",
                "message": message,
                "data": {"sqlState": "08001", "errorCode": "390001", "internalError": False},
            }
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})
