"""Runs one query-request's SQL on a worker thread and encodes the answer.

Single statements answer with their own result; several `;`-separated statements (with
MULTI_STATEMENT_COUNT) answer with a parent result listing one child query per statement.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from embucket_py.engine.executor import Statement
from embucket_py.engine.result import QueryResult, StatementType, constant
from embucket_py.errors import SnowflakeError, StatementCountMismatch
from embucket_py.server.snowflake.encoding import EncodedResult, encode_arrow, encode_json
from embucket_py.server.snowflake.running import QueryRecord
from embucket_py.server.state import ServerState
from embucket_py.sessions.session import Session
from embucket_py.sql.binds import Bind
from embucket_py.types import MAX_VARCHAR, SfType


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
        encode_json(result, timezone) if _wants_json(session, result) else encode_arrow(result, timezone)
    )
    encoded.data["statementTypeId"] = int(result.statement_type)
    names = ["TIMEZONE", *result.changed_parameters]
    encoded.data["parameters"] = [
        {"name": n, "value": session.parameters.get(n)} for n in dict.fromkeys(names)
    ]
    encoded.data |= {
        "finalDatabaseName": session.database,
        "finalSchemaName": session.schema,
        "finalWarehouseName": session.warehouse,
        "finalRoleName": session.role,
    }
    return encoded


def run(state: ServerState, session: Session, request: Request, record: QueryRecord) -> EncodedResult:
    statements = state.engine.prepare(request.sql)
    wanted = int(request.parameters.get("MULTI_STATEMENT_COUNT", 1) or 0)
    if wanted != 0 and wanted != len(statements):
        raise StatementCountMismatch(
            f"Actual statement count {len(statements)} did not match the desired statement count {wanted}."
        )
    if wanted == 1:
        return _one(state, session, request, statements[0], record)
    return _many(state, session, request, statements, record)


def _one(
    state: ServerState, session: Session, request: Request, statement: Statement, record: QueryRecord
) -> EncodedResult:
    result = state.engine.execute(
        session, statement, request.binds, cancel=record.cancel, describe_only=request.describe_only
    )
    encoded = encode(state, session, result)
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
            child.result = _one(state, session, request, statement, parent)
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
