"""AWS Lambda entry point: the same Starlette app, driven by API Gateway HTTP API (payload format
2.0) and Lambda Function URL events, which share one shape.

`handler(event, context)` is what Lambda calls. Settings come from EMBUCKET_* environment
variables as for `serve`; EMBUCKET_SECRET is required, because a later invocation may land on
another execution environment: sessions and query results must live in the metastore (item 3's
shared mode), never only in this process. Use a PostgreSQL metastore and an s3:// warehouse.

A warm execution environment reuses the app (and its event loop) between invocations; nothing a
later request needs is kept only there.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from typing import Any
from urllib.parse import quote

from embucket_py.config import Settings, load_settings

log = logging.getLogger(__name__)

# Response bodies of these types travel as text; anything else (Arrow chunks, gzip) as base64.
_TEXT_TYPES = ("application/json", "application/snowflake", "text/")


class LambdaApp:
    """One ASGI app with its lifespan started, answering Lambda HTTP events."""

    def __init__(self, settings: Settings | None = None) -> None:
        started = time.perf_counter()
        self.settings = settings or load_settings()
        if not self.settings.secret:
            raise RuntimeError(
                "EMBUCKET_SECRET must be set on Lambda: sessions and results must outlive the invocation"
            )
        from embucket_py.server.app import build_app

        self.app = build_app(self.settings)
        self.loop = asyncio.new_event_loop()
        self._lifespan_events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._lifespan_task = self.loop.create_task(self._run_lifespan())
        self.loop.run_until_complete(self._startup())
        self.cold_start_seconds = time.perf_counter() - started
        log.info("cold start: %.2f s", self.cold_start_seconds)

    # --- lifespan -------------------------------------------------------------------------------

    async def _run_lifespan(self) -> None:
        self._started: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self._stopped: asyncio.Future[dict[str, Any]] = self.loop.create_future()

        async def receive() -> dict[str, Any]:
            return await self._lifespan_events.get()

        async def send(message: dict[str, Any]) -> None:
            kind = message["type"]
            target = self._started if kind.startswith("lifespan.startup") else self._stopped
            if not target.done():
                target.set_result(message)

        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        await self.app(scope, receive, send)

    async def _startup(self) -> None:
        await asyncio.sleep(0)  # let the lifespan task create its futures
        await self._lifespan_events.put({"type": "lifespan.startup"})
        message = await self._started
        if message["type"] != "lifespan.startup.complete":
            raise RuntimeError(f"app startup failed: {message.get('message', '')}")

    def close(self) -> None:
        """Runs the app's shutdown (tests; Lambda simply freezes and discards the environment)."""

        async def stop() -> None:
            await self._lifespan_events.put({"type": "lifespan.shutdown"})
            await self._stopped

        self.loop.run_until_complete(stop())
        self.loop.close()

    # --- requests -------------------------------------------------------------------------------

    def __call__(self, event: dict[str, Any], context: Any = None) -> dict[str, Any]:
        return self.loop.run_until_complete(self._request(event))

    async def _request(self, event: dict[str, Any]) -> dict[str, Any]:
        scope, body = _scope(event)
        received = False
        status = 500
        headers: list[tuple[bytes, bytes]] = []
        parts: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal received
            if received:
                return {"type": "http.disconnect"}
            received = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return _response(status, headers, b"".join(parts))


def _scope(event: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """An ASGI HTTP scope and the request body from a payload-2.0 event."""
    http = event.get("requestContext", {}).get("http", {})
    headers = {k.lower(): str(v) for k, v in (event.get("headers") or {}).items()}
    if event.get("cookies"):
        headers["cookie"] = "; ".join(event["cookies"])
    raw = event.get("body") or ""
    body = base64.b64decode(raw) if event.get("isBase64Encoded") else raw.encode()
    host = headers.get("host") or event.get("requestContext", {}).get("domainName") or "localhost"
    scheme = headers.get("x-forwarded-proto", "https")
    port = int(headers.get("x-forwarded-port") or (443 if scheme == "https" else 80))
    path = event.get("rawPath") or http.get("path") or "/"
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": http.get("method", "GET"),
        "scheme": scheme,
        "path": path,
        "raw_path": quote(path).encode(),
        "root_path": "",
        "query_string": (event.get("rawQueryString") or "").encode(),
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        "server": (host.split(":")[0], port),
        "client": (http.get("sourceIp", "0.0.0.0"), 0),
    }
    return scope, body


def _response(status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> dict[str, Any]:
    out: dict[str, str] = {}
    cookies: list[str] = []
    for key, value in headers:
        name, text = key.decode().lower(), value.decode()
        if name == "set-cookie":
            cookies.append(text)
        else:
            out[name] = f"{out[name]},{text}" if name in out else text
    content_type = out.get("content-type", "")
    textual = "content-encoding" not in out and content_type.startswith(_TEXT_TYPES)
    answer: dict[str, Any] = {
        "statusCode": status,
        "headers": out,
        "body": body.decode() if textual else base64.b64encode(body).decode(),
        "isBase64Encoded": not textual,
    }
    if cookies:
        answer["cookies"] = cookies
    return answer


_default: LambdaApp | None = None


def handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """The Lambda function: builds the app on the first (cold) invocation, then reuses it."""
    global _default
    if _default is None:
        _default = LambdaApp()
    return _default(event, context)
