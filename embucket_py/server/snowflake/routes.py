"""The v1 REST routes, as data."""

from __future__ import annotations

from starlette.routing import Route

from embucket_py.server.snowflake import files, login, queries
from embucket_py.server.snowflake.wire import renewable

ROUTES = [
    Route("/session/v1/login-request", login.login_request, methods=["POST"]),
    Route("/session/token-request", login.token_request, methods=["POST"]),
    Route("/session/heartbeat", renewable(login.heartbeat), methods=["POST"]),
    Route("/session", renewable(login.session_request), methods=["POST"]),
    Route("/telemetry/send", renewable(login.telemetry), methods=["POST"]),
    Route("/queries/v1/query-request", renewable(queries.query_request), methods=["POST"]),
    Route("/queries/v1/abort-request", renewable(queries.abort_request), methods=["POST"]),
    Route("/queries/{query_id}/result", renewable(queries.query_result), methods=["GET"]),
    Route("/queries/{query_id}/abort-request", renewable(queries.abort_query), methods=["POST"]),
    # 5.2 asks /monitoring/queries//<id>, 4.x /monitoring/queries/<id>.
    Route("/monitoring/queries/{query_id}", renewable(queries.monitoring), methods=["GET"]),
    Route("/monitoring/queries//{query_id}", renewable(queries.monitoring), methods=["GET"]),
    Route("/results/{query_id}/chunks/{index:int}", queries.chunk, methods=["GET"]),
    # The S3-compatible endpoint connector 5.x uploads PUT files to and downloads GET files from.
    Route(f"/{files.BUCKET}/{{key:path}}", files.put_object, methods=["PUT"]),
    Route(f"/{files.BUCKET}/{{key:path}}", files.get_object, methods=["GET"]),
    Route(f"/{files.BUCKET}/{{key:path}}", files.head_object, methods=["HEAD"]),
    Route(f"/{files.BUCKET}/{{key:path}}", files.delete_object, methods=["DELETE"]),
]
