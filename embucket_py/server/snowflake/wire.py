"""Request and response plumbing of the v1 protocol: bodies, the envelope, tokens."""

from __future__ import annotations

import functools
import json
import re
import zlib
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from embucket_py.errors import SessionGone, SessionTokenExpired, SnowflakeError
from embucket_py.server.state import ServerState
from embucket_py.sessions.session import Session

_TOKEN = re.compile(r'Snowflake Token="([^"]*)"')


async def read_json(request: Request) -> dict[str, Any]:
    """The JSON body, inflated when gzip-compressed (4.x compresses every body)."""
    body = await request.body()
    state: ServerState = request.app.state.embucket
    limit = state.settings.max_request_mb * 1024 * 1024
    try:
        if body[:2] == b"\x1f\x8b":
            body = _inflate(body, limit)
        if not body.strip():
            return {}
        value = json.loads(body)
    except (OSError, EOFError, zlib.error, ValueError):  # bad gzip, bad UTF-8, bad JSON
        raise SnowflakeError("Invalid request body.", code=390001, sqlstate="08001") from None
    return value if isinstance(value, dict) else {}


def _inflate(body: bytes, limit: int) -> bytes:
    """gzip-inflates at most `limit` bytes: a small body must not expand into a huge one."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    data = inflater.decompress(body, limit + 1)
    if len(data) > limit:
        message = (
            f"Request body exceeds the maximum size of {limit // (1024 * 1024)} MB accepted by this server."
        )
        raise SnowflakeError(message, code=390001, sqlstate="08001")
    if not inflater.eof:
        raise zlib.error("truncated gzip body")
    return data


_ROWSET = '"rowsetBase64":""'
_INLINE_SPLICE = 1 << 12


def ok(data: dict[str, Any] | None = None, code: str | None = None, message: str | None = None) -> Response:
    """The success envelope. A large inline rowset is spliced into the JSON text as it is: base64
    needs no escaping, and the encoder would scan and copy a megabyte of it to learn that."""
    rowset = data.get("rowsetBase64") if data else None
    if not isinstance(rowset, str) or len(rowset) < _INLINE_SPLICE:
        return JSONResponse({"success": True, "code": code, "message": message, "data": data})
    text = _dumps({"success": True, "code": code, "message": message, "data": {**data, "rowsetBase64": ""}})
    # JSON escapes quotes inside strings: the placeholder's bytes can only be the key itself.
    head, _, tail = text.partition(_ROWSET)
    body = b"".join((head.encode(), b'"rowsetBase64":"', rowset.encode("ascii"), b'"', tail.encode()))
    return Response(body, media_type="application/json")


def _dumps(value: object) -> str:
    # As Starlette's JSONResponse renders.
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))


def fail(error: SnowflakeError, data: dict[str, Any] | None = None) -> JSONResponse:
    """A Snowflake error: HTTP 200 with success false (5xx would make the client retry)."""
    payload = {
        "sqlState": error.sqlstate,
        "errorCode": error.code_text,
        "internalError": False,
        "age": 0,
        "line": -1,
        "pos": -1,
        **(data or {}),
    }
    return JSONResponse(
        {"success": False, "code": error.code_text, "message": error.message, "data": payload}
    )


def state_of(request: Request) -> ServerState:
    state: ServerState = request.app.state.embucket
    return state


def token_of(request: Request) -> str:
    match = _TOKEN.search(request.headers.get("authorization", ""))
    return match.group(1) if match else ""


def session_of(request: Request) -> Session:
    """The caller's session.

    Raises:
        SessionGone / SessionTokenExpired: no valid session token.
    """
    token = token_of(request)
    if not token or token == "None":
        raise SessionGone("Session no longer exists.  New login required to access the service.")
    return state_of(request).sessions.get(token)


Handler = Callable[[Request], Awaitable[Response]]


def renewable(handler: Handler) -> Handler:
    """Answers an expired session token so that the caller's connector renews it.

    4.x renews on HTTP 200 + code 390112 (and fails on 401); 5.x renews on 401 everywhere but
    on 200 + 390112 only for query-requests (its polls and status calls give up instead).
    """

    @functools.wraps(handler)
    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except SessionTokenExpired as e:
            response = fail(e)
            session = state_of(request).sessions.peek(token_of(request))
            if session is not None and session.client_major_version >= 5:
                response.status_code = 401
            return response

    return guarded


def parameter_list(session: Session, names: list[str] | None = None) -> list[dict[str, Any]]:
    items = session.parameters.items() if names is None else [(n, session.parameters.get(n)) for n in names]
    return [{"name": name, "value": value} for name, value in items]
