"""Login, token renewal, heartbeat, logout and telemetry."""

from __future__ import annotations

import logging

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from embucket_py.engine.access_statements import login_role
from embucket_py.engine.executor import SERVER_VERSION
from embucket_py.errors import AuthError, IncorrectCredentials
from embucket_py.server.snowflake.wire import (
    fail,
    ok,
    parameter_list,
    read_json,
    session_of,
    state_of,
    token_of,
)
from embucket_py.server.state import ServerState
from embucket_py.sessions.keypair import UserKeys
from embucket_py.sessions.ratelimit import LoginLimiter
from embucket_py.sessions.session import Session

log = logging.getLogger(__name__)

_SUPPORTED_AUTHENTICATORS = {"", "SNOWFLAKE", "SNOWFLAKE_JWT"}
_WRONG = "Incorrect username or password was specified."

# One limiter and key store per metastore engine (built on first use; both live in the metastore).
_AUTH: dict[int, tuple[LoginLimiter, UserKeys]] = {}


def _auth(state: ServerState) -> tuple[LoginLimiter, UserKeys]:
    key = id(state.metastore.engine)
    if key not in _AUTH:
        limiter = LoginLimiter(
            state.metastore.engine,
            state.settings.login_failures_before_lock,
            state.settings.login_lock_max_seconds,
        )
        _AUTH[key] = (limiter, UserKeys(state.metastore.engine))
    return _AUTH[key]


def _check_credentials(state: ServerState, body: dict[str, object], user: str, authenticator: str) -> None:
    """Password or key-pair check, rate-limited per user name (runs on a worker thread).

    Raises:
        AuthError: locked, wrong password, or a JWT that does not verify.
    """
    limiter, keys = _auth(state)
    if limiter.locked_for(user) > 0:
        # Refused without looking at the credentials, so a lock cannot be waited out by guessing.
        raise AuthError("User temporarily locked.", code=390102, sqlstate="28000")
    try:
        if authenticator == "SNOWFLAKE_JWT":
            account = str(body.get("ACCOUNT_NAME") or state.settings.account)
            keys.verify(account, user, str(body.get("TOKEN") or ""))
        elif not state.metastore.authenticate(user, str(body.get("PASSWORD") or "")):
            raise IncorrectCredentials(_WRONG)
    except AuthError:
        limiter.failed(user)
        raise
    limiter.succeeded(user)


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
    data = (await read_json(request)).get("data")
    body: dict[str, object] = data if isinstance(data, dict) else {}
    user = str(body.get("LOGIN_NAME") or "")[:255]
    authenticator = str(body.get("AUTHENTICATOR") or "").upper()
    if authenticator not in _SUPPORTED_AUTHENTICATORS:
        error = IncorrectCredentials(f"Authenticator {authenticator} is not supported by this server.")
        return fail(error, {"nextAction": "RETRY_LOGIN", "authnMethod": authenticator})
    method = "KEY_PAIR" if authenticator == "SNOWFLAKE_JWT" else "USERNAME_PASSWORD"
    if not user:
        return fail(IncorrectCredentials(_WRONG), {"nextAction": "RETRY_LOGIN", "authnMethod": method})
    try:
        await run_in_threadpool(_check_credentials, state, body, user, authenticator)
    except AuthError as error:
        log.info("failed login for user %r: %s", user, error.message)
        return fail(error, {"nextAction": "RETRY_LOGIN", "authnMethod": method})

    session = Session(
        user=user.upper(),
        account=str(body.get("ACCOUNT_NAME") or state.settings.account),
        parameters=await run_in_threadpool(state.engine.session_defaults),
        client_app=str(body.get("CLIENT_APP_ID") or ""),
        client_version=str(body.get("CLIENT_APP_VERSION") or ""),
        client_ip=request.client.host if request.client else None,
    )
    parameters = body.get("SESSION_PARAMETERS")
    for name, value in (parameters if isinstance(parameters, dict) else {}).items():
        session.parameters[str(name).upper()] = _parameter_value(value)
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
    try:
        requested = _object_name(query.get("roleName"))
        session.role = await run_in_threadpool(login_role, state.metastore.grants, session.user, requested)
    except AuthError as error:
        return fail(error, {"nextAction": "RETRY_LOGIN", "authnMethod": method})
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
