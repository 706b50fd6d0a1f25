"""Runs one query-request's SQL on a worker thread and encodes the answer.

Single statements answer with their own result; several `;`-separated statements (with
MULTI_STATEMENT_COUNT) answer with a parent result listing one child query per statement.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any

from embucket_py.engine.executor import Statement
from embucket_py.engine.result import QueryResult, StatementType, constant
from embucket_py.engine.stages import TransferResult
from embucket_py.errors import ExecutionError, ResultExpired, SnowflakeError, StatementCountMismatch
from embucket_py.server.snowflake import files
from embucket_py.server.snowflake.encoding import EncodedResult, encode_arrow, encode_json
from embucket_py.server.snowflake.running import QueryRecord
from embucket_py.server.state import ServerState
from embucket_py.sessions.session import Session
from embucket_py.sql.binds import Bind
from embucket_py.types import MAX_VARCHAR, SfType

log = logging.getLogger(__name__)

# The generic compilation error code (what Unsupported and unmapped engine errors answer with)
# and 002140 Unknown function (a Snowflake function not here, or a name the user mistyped).
UNANSWERED_CODES = (2, 2140)


@dataclass(frozen=True)
class Request:
    sql: str
    binds: list[Bind]
    parameters: dict[str, Any]
    describe_only: bool


def _wants_json(session: Session, result: QueryResult) -> bool:
    # DML counts must be JSON: the connector reads rowcount from the JSON rowset only.
    if result.statement_type != StatementType.SELECT:
        return True
    fmt = session.parameter("PYTHON_CONNECTOR_QUERY_RESULT_FORMAT") or session.parameter(
        "QUERY_RESULT_FORMAT"
    )
    return str(fmt or "ARROW").upper() == "JSON"


def encode(state: ServerState, session: Session, result: QueryResult) -> EncodedResult:
    timezone = str(session.parameter("TIMEZONE") or state.settings.timezone)
    encoded = (
        encode_json(result, timezone)
        if _wants_json(session, result)
        else encode_arrow(result, timezone, state.queries.serialize_ahead)
    )
    encoded.data["statementTypeId"] = int(result.statement_type)
    # UNSET leaves a parameter out of the session but the client needs its default (it ignores
    # nulls and would keep the old value), which the statement reports in changed_parameters.
    values = {"TIMEZONE": session.parameters.get("TIMEZONE", timezone), **result.changed_parameters}
    encoded.data["parameters"] = [{"name": n, "value": "" if v is None else v} for n, v in values.items()]
    encoded.data |= {
        "finalDatabaseName": session.database,
        "finalSchemaName": session.schema,
        "finalWarehouseName": session.warehouse,
        "finalRoleName": session.role,
    }
    return encoded


# The 4.x connector's get_results_from_sfqid fetches a finished query's result with exactly this.
_RESULT_SCAN = re.compile(
    r"\s*select\s+\*\s+from\s+table\s*\(\s*result_scan\s*\(\s*'([^']*)'\s*\)\s*\)\s*;?\s*",
    re.IGNORECASE,
)


def _result_scan(state: ServerState, session: Session, query_id: str) -> EncodedResult:
    """A stored result of the user's again, served from the query registry (no re-execution)."""
    record = state.queries.get_own(query_id, session, state.engine.history.user_of)
    if record is None or not record.done:
        raise ResultExpired(f"Result for query {query_id} has expired")
    if record.error is not None:
        raise record.error
    assert record.result is not None
    # A multi-statement parent scans as its one summary row; the client then asks for the
    # children itself (with resultIds here it would treat the scan as multi-statement too).
    data = {k: v for k, v in record.result.data.items() if k not in ("resultIds", "resultTypes")}
    return EncodedResult(data, record.result.chunks)


# SYSTEM$CANCEL_QUERY('id') called as the docs call it, on its own: the statements in flight are
# the query registry's. https://docs.snowflake.com/en/sql-reference/functions/system_cancel_query
_CANCEL_QUERY = re.compile(r"\s*select\s+(system\$cancel_query\s*\(\s*'([^']*)'\s*\))\s*;?\s*", re.IGNORECASE)


def _cancel_query(state: ServerState, session: Session, call: str, query_id: str) -> EncodedResult:
    """Cancels a statement of the user's own (anyone's for ACCOUNTADMIN) that is still running.

    Raises:
        ExecutionError: no such statement of the user's is running.
    """
    if session.role == "ACCOUNTADMIN":
        record = state.queries.get(query_id)
    else:
        record = state.queries.get_own(query_id, session, state.engine.history.user_of)
    if record is None or not state.queries.abort(record):
        raise ExecutionError("Identified SQL statement is not currently executing.")
    name = " ".join(call.split()).upper()  # the column is named after the call's text, id and all
    text = SfType("TEXT", length=MAX_VARCHAR)
    answer = constant([(name, text)], [(f"query [{query_id}] terminated.",)], StatementType.SELECT)
    return encode(state, session, answer)


def run(state: ServerState, session: Session, request: Request, record: QueryRecord) -> EncodedResult:
    try:
        return _run(state, session, request, record)
    finally:
        if state.queries.shared is not None:
            # Other servers read this query history too: it reaches the metastore before the answer.
            state.engine.history.flush()


def _run(state: ServerState, session: Session, request: Request, record: QueryRecord) -> EncodedResult:
    if cancel := _CANCEL_QUERY.fullmatch(request.sql):
        return _cancel_query(state, session, cancel.group(1), cancel.group(2))
    scan = _RESULT_SCAN.fullmatch(request.sql)
    if scan and state.queries.get_own(scan.group(1), session, state.engine.history.user_of) is not None:
        return _result_scan(state, session, scan.group(1))
    # Otherwise RESULT_SCAN runs in the engine, over the durable copy of the result.
    statements = state.engine.prepare(request.sql)
    wanted = int(request.parameters.get("MULTI_STATEMENT_COUNT", 1) or 0)
    if wanted != 0 and wanted != len(statements):
        raise StatementCountMismatch(
            f"Actual statement count {len(statements)} did not match the desired statement count {wanted}."
        )
    if wanted == 1:
        return _one(state, session, request, statements[0], record, record.id)
    return _many(state, session, request, statements, record)


def _one(
    state: ServerState,
    session: Session,
    request: Request,
    statement: Statement,
    record: QueryRecord,
    query_id: str,
) -> EncodedResult:
    """One statement; `query_id` is its own id (a child's inside a multi-statement request)."""
    try:
        result = state.engine.execute(
            session,
            statement,
            request.binds,
            cancel=record.cancel,
            describe_only=request.describe_only,
            query_id=query_id,
        )
    except SnowflakeError as e:
        if e.code in UNANSWERED_CODES:
            # Unsupported statements and functions, and plans the engine refuses: the gaps a
            # client tool runs into, logged with their text so they are visible.
            reason = e.message.splitlines()[-1]
            log.warning("cannot answer (%s): %s -- %s", e.sqlstate, statement.text, reason)
        raise
    encoded = encode(state, session, result)
    if isinstance(result, TransferResult) and result.transfer is not None:
        encoded.data |= files.transfer_data(state, session, result.transfer)
    if request.describe_only:
        encoded.data |= {"numberOfBinds": statement.bind_count, "arrayBindSupported": True}
    return encoded


def _many(
    state: ServerState, session: Session, request: Request, statements: list[Statement], parent: QueryRecord
) -> EncodedResult:
    ids, types = [], []
    for statement in statements:
        child = state.queries.new(session.id, statement.text)
        ids.append(child.id)
        try:
            child.result = _one(state, session, request, statement, parent, child.id)
            state.queries.hold(child.id, child.result.chunks)
            types.append(str(child.result.data["statementTypeId"]))
        except SnowflakeError as e:
            child.error = e
            raise
        finally:
            child.end = time.time()
    summary = constant(
        [("multiple statement execution", SfType("TEXT", length=MAX_VARCHAR))],
        [("Multiple statements executed successfully.",)],
        StatementType.MULTI_STATEMENT,
    )
    encoded = encode(state, session, summary)
    encoded.data |= {"resultIds": ",".join(ids), "resultTypes": ",".join(types)}
    return encoded
