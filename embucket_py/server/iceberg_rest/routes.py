"""The Iceberg REST catalog's router: one catch-all route, matched on the decoded raw path.

Starlette's decoded `path` cannot be used: it has already turned both `+` and `%2B` into `+` and
`%2F` into `/`, while Java form-encodes names (space is `+`) and namespaces are joined with `%1F`.
So the raw path is split on `/` and each segment decoded with `unquote_plus`. A catch-all also
avoids Starlette's trailing-slash redirects, which clients do not follow.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from pyiceberg.catalog.sql import SqlCatalog
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from embucket_py.server.iceberg_rest import access, auth, commits, handlers, names, views
from embucket_py.server.iceberg_rest.errors import RestError, bad_request, from_exception, not_found_route
from embucket_py.server.state import ServerState

log = logging.getLogger(__name__)


@dataclass
class Call:
    """One request, parsed: path parameters, query, JSON body, and the database's catalog."""

    state: ServerState
    params: dict[str, str]
    query: dict[str, str]
    body: dict[str, Any]
    _catalog: SqlCatalog | None = field(default=None, repr=False)

    @property
    def catalog(self) -> SqlCatalog:
        if self._catalog is None:
            key = names.database_key(self.state.metastore, self.params["prefix"])
            self._catalog = self.state.metastore.catalog(key)
        return self._catalog

    @property
    def namespace(self) -> names.Namespace:
        return tuple(self.params["namespace"].split("\x1f"))

    @property
    def table(self) -> str:
        return self.params["table"]

    @property
    def view(self) -> str:
        return self.params["view"]


Handler = Callable[[Call], Any]
_NS = ("v1", "{prefix}", "namespaces", "{namespace}")
_TABLE = (*_NS, "tables", "{table}")
_VIEW = (*_NS, "views", "{view}")

# (method, path pattern, handler). Placeholders are whole segments.
TABLE: list[tuple[str, tuple[str, ...], Handler]] = [
    ("GET", ("v1", "config"), lambda c: handlers.get_config(
        c.state.metastore, c.state.settings.default_database, c.query)),
    ("GET", ("v1", "{prefix}", "namespaces"), lambda c: handlers.list_namespaces(c.catalog, c.query)),
    ("POST", ("v1", "{prefix}", "namespaces"), lambda c: handlers.create_namespace(c.catalog, c.body)),
    ("GET", _NS, lambda c: handlers.load_namespace(c.catalog, c.namespace)),
    ("HEAD", _NS, lambda c: handlers.namespace_exists(c.catalog, c.namespace)),
    ("DELETE", _NS, lambda c: handlers.drop_namespace(c.catalog, c.namespace)),
    ("POST", (*_NS, "properties"), lambda c: handlers.update_namespace_properties(
        c.catalog, c.namespace, c.body)),
    ("GET", (*_NS, "tables"), lambda c: handlers.list_tables(c.catalog, c.namespace)),
    ("POST", (*_NS, "tables"), lambda c: handlers.create_table(c.catalog, c.namespace, c.body)),
    ("POST", (*_NS, "register"), lambda c: handlers.register_table(c.catalog, c.namespace, c.body)),
    ("GET", _TABLE, lambda c: handlers.load_table(c.catalog, c.namespace, c.table)),
    ("HEAD", _TABLE, lambda c: handlers.table_exists(c.catalog, c.namespace, c.table)),
    ("POST", _TABLE, lambda c: commits.commit_table(c.catalog, c.namespace, c.table, c.body)),
    ("DELETE", _TABLE, lambda c: handlers.drop_table(c.catalog, c.namespace, c.table, c.query)),
    ("GET", (*_TABLE, "credentials"), lambda c: handlers.load_credentials(c.catalog, c.namespace, c.table)),
    ("POST", (*_TABLE, "metrics"), lambda c: handlers.report_metrics(c.body)),
    ("POST", ("v1", "{prefix}", "tables", "rename"), lambda c: handlers.rename_table(c.catalog, c.body)),
    ("POST", ("v1", "{prefix}", "transactions", "commit"), lambda c: commits.commit_transaction(
        c.catalog, c.body)),
    ("GET", (*_NS, "views"), lambda c: {"identifiers": [
        {"namespace": [ns], "name": v} for ns in [names.existing_namespace(c.catalog, c.namespace)]
        for v in views.list_views(c.catalog, ns)]}),
    ("POST", (*_NS, "views"), lambda c: views.create_view(c.catalog, c.namespace, c.body)),
    ("GET", _VIEW, lambda c: views.load_view(c.catalog, c.namespace, c.view)),
    ("HEAD", _VIEW, lambda c: views.view_exists(c.catalog, c.namespace, c.view)),
    ("POST", _VIEW, lambda c: views.replace_view(c.catalog, c.namespace, c.view, c.body)),
    ("DELETE", _VIEW, lambda c: views.drop_view(c.catalog, c.namespace, c.view)),
    ("POST", ("v1", "{prefix}", "views", "rename"), lambda c: views.rename_view(c.catalog, c.body)),
]  # fmt: skip


def match(method: str, segments: list[str]) -> tuple[Handler, dict[str, str], tuple[str, ...]] | None:
    for route_method, pattern, handler in TABLE:
        if route_method != method or len(pattern) != len(segments):
            continue
        params: dict[str, str] = {}
        for part, segment in zip(pattern, segments, strict=True):
            if part.startswith("{"):
                params[part[1:-1]] = segment
            elif part != segment:
                break
        else:
            return handler, params, pattern
    return None


def route_segments(scope: dict[str, Any]) -> list[str]:
    raw = scope.get("raw_path") or scope["path"].encode()
    path = raw.decode("latin-1")
    root = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return [unquote_plus(s) for s in path.split("/") if s]


def _error(exc: RestError, method: str) -> Response:
    if method == "HEAD":
        return Response(status_code=exc.status)
    return JSONResponse(exc.body(), status_code=exc.status)


def _reply(result: Any, method: str) -> Response:
    if result is None or method == "HEAD":
        return Response(status_code=204)
    if isinstance(result, handlers.Json):
        return Response(result.text, media_type="application/json")
    return JSONResponse(result)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    body = json.loads(raw)
    if not isinstance(body, dict):
        raise bad_request("Request body must be a JSON object")
    return body


async def tokens(request: Request) -> Response:
    state: ServerState = request.app.state.embucket
    form = dict(parse_qsl((await request.body()).decode()))
    try:
        result = await run_in_threadpool(auth.token_response, state.metastore, form)
    except auth.OAuthError as e:
        return JSONResponse(e.body(), status_code=e.status)
    return JSONResponse(result)


async def dispatch(request: Request) -> Response:
    method = request.method
    segments = route_segments(request.scope)
    if segments == ["v1", "oauth", "tokens"] and method == "POST":
        return await tokens(request)
    try:
        found = match(method, segments)
        if found is None:
            raise not_found_route(method, "/" + "/".join(segments))
        handler, params, pattern = found
        state: ServerState = request.app.state.embucket
        header = request.headers.get("authorization")
        user = auth.authorize(header, state.sessions)
        body = await _body(request) if method == "POST" else {}
        call = Call(state, params, dict(request.query_params), body)
        result = await run_in_threadpool(
            _guarded, handler, call, user, (header or "").partition(" ")[2].strip(), pattern, method
        )
    except Exception as exc:
        error = from_exception(exc)
        if error.status >= 500:
            log.error("iceberg rest %s %s failed", method, request.url.path, exc_info=exc)
        return _error(error, method)
    return _reply(result, method)


def _guarded(
    handler: Handler, call: Call, user: str, token: str, pattern: tuple[str, ...], method: str
) -> Any:
    """The handler behind the caller's roles and privileges (the same ones as on the SQL side)."""
    grants = call.state.metastore.grants
    role, roles = access.caller(grants, user, token, call.state.sessions)
    access.check(grants, roles, pattern, method, call)
    result = handler(call)
    access.after(grants, role, pattern, method, call)
    return access.visible(grants, roles, call, result) if method == "GET" else result


ROUTES: list[BaseRoute] = [
    Route("/{rest:path}", dispatch, methods=["GET", "HEAD", "POST", "DELETE", "PUT"]),
]
