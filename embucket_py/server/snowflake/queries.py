"""query-request, results by id, monitoring, abort, and chunk downloads."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from embucket_py.errors import ResultExpired, SnowflakeError
from embucket_py.server.limits import timeout_seconds
from embucket_py.server.snowflake import execution
from embucket_py.server.snowflake.bindings import parse_bindings
from embucket_py.server.snowflake.running import QueryRecord
from embucket_py.server.snowflake.wire import fail, ok, read_json, session_of, state_of
from embucket_py.sessions.session import Session

IN_PROGRESS = "333333"
ASYNC_IN_PROGRESS = "333334"


async def query_request(request: Request) -> JSONResponse:
    state = state_of(request)
    session = session_of(request)
    body = await read_json(request)
    request_id = request.query_params.get("requestId")
    # A replayed request (retry=true) must not run its statement twice.
    if request_id and request.query_params.get("retry") == "true":
        previous = state.queries.by_request(request_id)
        if previous is not None:
            return await _answer(request, previous)
    params = body.get("parameters") or {}
    if not isinstance(params, dict):
        params = {}
    count = params.get("MULTI_STATEMENT_COUNT")
    if count is not None and not (isinstance(count, int) or str(count).strip().isdigit()):
        raise SnowflakeError(
            f"Invalid value [{str(count)[:50]}] for parameter 'MULTI_STATEMENT_COUNT'",
            code=2,
            sqlstate="22023",
        )
    run = execution.Request(
        sql=str(body.get("sqlText") or ""),
        binds=parse_bindings(body.get("bindings")),
        parameters={k.upper(): v for k, v in params.items()},
        describe_only=bool(body.get("describeOnly")),
    )
    record = state.queries.new(session.id, run.sql, request_id)
    work = functools.partial(execution.run, state, session, run)
    # Shared mode writes the session back (USE, SET, ALTER SESSION) when the statement ends.
    timeout = timeout_seconds(
        run.parameters.get("STATEMENT_TIMEOUT_IN_SECONDS"), session.parameter("STATEMENT_TIMEOUT_IN_SECONDS")
    )
    state.queries.start(record, state.sessions.after(session, work), timeout)
    if body.get("asyncExec"):
        return ok(
            {
                "queryId": record.id,
                "getResultUrl": f"/queries/{record.id}/result",
                "queryAbortsAfterSecs": 300,
            },
            code=ASYNC_IN_PROGRESS,
            message="Asynchronous execution in progress. Use provided query id to perform query monitoring "
            "and management.",
        )
    return await _answer(request, record)


async def _answer(request: Request, record: QueryRecord) -> JSONResponse:
    """The record's outcome, after waiting for it up to the sync-wait limit."""
    state = state_of(request)
    if not await state.queries.wait(record, state.settings.sync_wait):
        return ok(
            {"queryId": record.id, "getResultUrl": f"/queries/{record.id}/result"},
            code=IN_PROGRESS,
            message="Query execution in progress",
        )
    if record.error is not None:
        return fail(record.error, {"queryId": record.id})
    assert record.result is not None
    data = {"queryId": record.id, **record.result.data}
    if record.result.chunks:
        base = str(request.base_url).rstrip("/")
        data["chunks"] = [
            {
                "url": f"{base}/results/{record.id}/chunks/{i}?token={record.chunk_token}",
                "rowCount": chunk.row_count,
                "uncompressedSize": chunk.uncompressed_size,
                "compressedSize": chunk.size,
            }
            for i, chunk in enumerate(record.result.chunks)
        ]
        data["chunkHeaders"] = {}
        data["qrmk"] = ""
    return ok(data)


def _record(request: Request, session: Session | None = None) -> QueryRecord | None:
    """The statement of the URL; with a session, only when it is that user's."""
    state = state_of(request)
    query_id = request.path_params["query_id"]
    if session is None:
        return state.queries.get(query_id)
    return state.queries.get_own(query_id, session, state.engine.history.user_of)


async def query_result(request: Request) -> JSONResponse:
    """GET /queries/{id}/result: polls of slow statements, async results, multi-statement children."""
    record = _record(request, session_of(request))
    if record is None:
        query_id = request.path_params["query_id"]
        return fail(ResultExpired(f"Result for query {query_id} has expired"), {"queryId": query_id})
    return await _answer(request, record)


async def monitoring(request: Request) -> JSONResponse:
    """GET /monitoring/queries/{id} (5.2 sends a double slash): status for get_query_status."""
    record = _record(request, session_of(request))
    return ok({"queries": [record.monitoring()] if record is not None else []})


async def abort_query(request: Request) -> JSONResponse:
    """POST /queries/{id}/abort-request: success means it was running and is now canceled."""
    record = _record(request, session_of(request))
    if record is None or not state_of(request).queries.abort(record):
        return JSONResponse(
            {"success": False, "code": None, "message": "Query is not running.", "data": None}
        )
    return ok({})


async def abort_request(request: Request) -> JSONResponse:
    """POST /queries/v1/abort-request: cancel the in-flight statement with this requestId."""
    session_of(request)
    body = await read_json(request)
    state = state_of(request)
    record = state.queries.by_request(str(body.get("requestId") or ""))
    if record is None or not state.queries.abort(record):
        return JSONResponse(
            {"success": False, "code": None, "message": "Query is not running.", "data": None}
        )
    return ok({})


async def chunk(request: Request) -> Response:
    """A result chunk. The connector sends no session token here: the URL's token authorises."""
    record = _record(request)
    index = int(request.path_params["index"])
    if (
        record is None
        or record.result is None
        or request.query_params.get("token") != record.chunk_token
        or not 0 <= index < len(record.result.chunks)
    ):
        return Response(status_code=404)
    # Arrow chunks not serialized yet are now, on a worker thread (pyarrow releases the GIL).
    chunk = record.result.chunks[index]
    body = await run_in_threadpool(state_of(request).queries.chunk_body, chunk)
    # Sent in slices: the event loop's transport keeps what the socket did not take in one
    # bytearray and moves the rest down after every send (Python 3.11), which for 16 MB handed
    # over at once cost ~35 ms of memmove per chunk; a slice at a time waits for the socket.
    view = memoryview(body)
    slices = (view[i : i + SEND_SLICE] for i in range(0, len(view), SEND_SLICE))
    return StreamingResponse(
        _aiter(slices), media_type="application/octet-stream", headers={"content-length": str(len(view))}
    )


SEND_SLICE = 1 << 20


async def _aiter(items: Iterator[memoryview]) -> AsyncIterator[memoryview]:
    for item in items:
        yield item
