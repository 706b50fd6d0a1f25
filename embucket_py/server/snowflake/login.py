"""Login, token renewal, heartbeat, logout and telemetry."""

from __future__ import annotations

import logging

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from embucket_py.engine.executor import SERVER_VERSION
from embucket_py.errors import IncorrectCredentials
from embucket_py.server.snowflake.wire import (
    fail,
    ok,
    parameter_list,
    read_json,
    session_of,
    state_of,
    token_of,
)
from embucket_py.sessions.session import Session

log = logging.getLogger(__name__)

_SUPPORTED_AUTHENTICATORS = {"", "SNOWFLAKE"}


def _object_name(value: str | None) -> str | None:
    """A login-time object name as Snowflake resolves it: "Quoted" keeps case, else upper."""
    if not value:
        return None
    if len(value) > 1 and value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    return value.upper()


def _parameter_value(value: object) -> object:
    """SESSION_PARAMETERS arrive as strings; keep booleans and integers typed."""
    if isinstance(value, str):
        if value.lower() in ("true", "false"):
            return value.lower() == "true"
        if value.lstrip("-").isdigit():
            return int(value)
    return value


async def login_request(request: Request) -> JSONResponse:
    state = state_of(request)
    body = (await read_json(request)).get("data") or {}
    user = str(body.get("LOGIN_NAME") or "")
    password = str(body.get("PASSWORD") or "")
    authenticator = str(body.get("AUTHENTICATOR") or "").upper()
    if authenticator not in _SUPPORTED_AUTHENTICATORS:
        error = IncorrectCredentials(f"Authenticator {authenticator} is not supported by this server.")
        return fail(error, {"nextAction": "RETRY_LOGIN", "authnMethod": authenticator})
    if not user or not await run_in_threadpool(state.metastore.authenticate, user, password):
        log.info("failed login for user %r", user)
        error = IncorrectCredentials("Incorrect username or password was specified.")
        return fail(error, {"nextAction": "RETRY_LOGIN", "authnMethod": "USERNAME_PASSWORD"})

    session = Session(
        user=user.upper(),
        account=str(body.get("ACCOUNT_NAME") or state.settings.account),
        parameters=dict(state.engine.parameter_defaults),
        client_app=str(body.get("CLIENT_APP_ID") or ""),
        client_version=str(body.get("CLIENT_APP_VERSION") or ""),
    )
    for name, value in (body.get("SESSION_PARAMETERS") or {}).items():
        session.parameters[name.upper()] = _parameter_value(value)
    query = request.query_params
    database = _object_name(query.get("databaseName"))
    schema = _object_name(query.get("schemaName"))
    # Like Snowflake, a login naming a missing database or schema succeeds without one.
    if database and await run_in_threadpool(state.metastore.database_exists, database):
        session.database = database
        schema = schema or "PUBLIC"
        if await run_in_threadpool(state.metastore.schema_exists, database, schema):
            session.schema = schema
    session.warehouse = _object_name(query.get("warehouse"))
    session.role = _object_name(query.get("roleName")) or session.role
    token, master = state.sessions.open(session)
    log.info(
        "login: user %s, session %d, client %s %s",
        session.user,
        session.id,
        session.client_app,
        session.client_version,
    )
    return ok(
        {
            "token": token,
            "masterToken": master,
            "sessionId": session.id,
            "validityInSeconds": state.settings.session_ttl,
            "masterValidityInSeconds": state.settings.master_ttl,
            "serverVersion": SERVER_VERSION,
            "displayUserName": session.user,
            "firstLogin": False,
            "healthCheckInterval": 45,
            "newClientForUpgrade": None,
            "parameters": parameter_list(session),
            "sessionInfo": {
                "databaseName": session.database,
                "schemaName": session.schema,
                "warehouseName": session.warehouse,
                "roleName": session.role,
            },
        }
    )


async def token_request(request: Request) -> JSONResponse:
    state = state_of(request)
    body = await read_json(request)
    token, session = state.sessions.renew(token_of(request), str(body.get("oldSessionToken") or ""))
    return ok(
        {
            "sessionToken": token,
            "validityInSecondsST": state.settings.session_ttl,
            "masterToken": token_of(request),
            "validityInSecondsMT": state.settings.master_ttl,
            "sessionId": session.id,
        }
    )


async def heartbeat(request: Request) -> JSONResponse:
    session_of(request)
    return ok({})


async def session_request(request: Request) -> JSONResponse:
    """POST /session?delete=true closes the session (conn.close())."""
    if request.query_params.get("delete", "").lower() == "true":
        session_of(request)
        state = state_of(request)
        closed = state.sessions.close(token_of(request))
        if closed is not None:
            # Rolls back an open transaction and drops TEMPORARY tables (catalog I/O: off the loop).
            await run_in_threadpool(state.engine.end_session, closed)
    return ok({})


async def telemetry(request: Request) -> JSONResponse:
    session_of(request)
    return ok({})
