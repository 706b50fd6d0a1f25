"""PUT/GET for the connector: the stageInfo answer, and a small S3-compatible endpoint for it.

Connector 5.x only speaks to cloud storage, so internal stages are offered as an S3 bucket
served by this same server (PutObject, HeadObject, GetObject, DeleteObject under
/Stage_Bucket/...). Connector 4.x cannot reach a plain-http S3 endpoint, but copies files itself
for a LOCAL_FS stage: it gets the stage's directory on this machine. See
shared/design/snowflake-rest-protocol.md section 12.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
import zlib
from collections.abc import AsyncIterator
from email.utils import formatdate
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from embucket_py.engine.stages import Transfer
from embucket_py.errors import Unsupported
from embucket_py.server.snowflake.wire import state_of
from embucket_py.server.state import ServerState
from embucket_py.sessions.session import Session
from embucket_py.stages.fileio import StageStore, internal_root

BUCKET = "Stage_Bucket"  # not DNS-compatible: clients use path-style URLs even with a host name
TOKEN_TTL = 3600
# Multipart uploads only start above this size; one PutObject streams to storage anyway.
THRESHOLD = 1 << 40
_SECRET = secrets.token_bytes(32)
_CHUNK = 1 << 20
PUT_TYPE = 0x7102
GET_TYPE = 0x7101


def _token(key: str, expires: int) -> str:
    body = f"{key}\n{expires}"
    mac = hmac.new(_SECRET, body.encode(), hashlib.sha256).hexdigest()
    return base64.urlsafe_b64encode(f"{body}\n{mac}".encode()).decode()


def _allowed(token: str, key: str) -> bool:
    """Whether an upload/download token covers an object key (it names a stage prefix)."""
    try:
        prefix, expires, mac = base64.urlsafe_b64decode(token.encode()).decode().split("\n")
    except (ValueError, UnicodeDecodeError):
        return False
    expected = hmac.new(_SECRET, f"{prefix}\n{expires}".encode(), hashlib.sha256).hexdigest()
    return (
        hmac.compare_digest(mac, expected)
        and int(expires) > time.time()
        and (key == prefix or key.startswith(prefix.rstrip("/") + "/"))
    )


def transfer_data(state: ServerState, session: Session, transfer: Transfer) -> dict[str, Any]:
    """The query response fields that make the connector upload or download."""
    options = transfer.options
    data: dict[str, Any] = {
        "command": transfer.command,
        "src_locations": transfer.src_locations,
        "parallel": int(options.get("PARALLEL") or 4),
        "threshold": THRESHOLD,
        "statementTypeId": PUT_TYPE if transfer.command == "UPLOAD" else GET_TYPE,
        "encryptionMaterial": [],
    }
    if transfer.command == "UPLOAD":
        data |= {
            "autoCompress": bool(options.get("AUTO_COMPRESS", True)),
            "sourceCompression": str(options.get("SOURCE_COMPRESSION") or "auto_detect").lower(),
            "overwrite": bool(options.get("OVERWRITE", False)),
        }
        data["encryptionMaterial"] = None
    else:
        data["localLocation"] = transfer.local_location
    legacy = bool(session.client_major_version) and session.client_major_version < 5
    if legacy and not transfer.local_dir:
        raise Unsupported("PUT and GET from connector 4.x need the warehouse on a local file system.")
    if legacy:
        data["stageInfo"] = {
            "locationType": "LOCAL_FS",
            "location": transfer.local_dir,
            "path": "",
            "region": "",
            "creds": {},
            "isClientSideEncrypted": False,
        }
        return data
    key = transfer.key.strip("/")
    token = _token(key, int(time.time()) + TOKEN_TTL)
    data["stageInfo"] = {
        "locationType": "S3",
        "location": f"{BUCKET}/{key}/",
        "path": f"{key}/",
        "region": "us-east-1",
        "endPoint": state.settings.advertised_url(),
        "creds": {"AWS_KEY_ID": "embucket", "AWS_SECRET_KEY": "embucket", "AWS_TOKEN": token},
        "isClientSideEncrypted": False,
        "useS3RegionalUrl": False,
    }
    return data


# --- the S3 endpoint -----------------------------------------------------------------------------


def _store(request: Request) -> StageStore:
    return StageStore(internal_root(state_of(request).metastore.warehouse))


def _error(status: int, code: str, message: str) -> Response:
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f"<Error><Code>{code}</Code><Message>{message}</Message></Error>"
    )
    return Response(body, status_code=status, media_type="application/xml")


def _key(request: Request) -> str | None:
    key = str(request.path_params["key"]).strip("/")
    if ".." in key.split("/") or "/." in f"/{key}":
        return None
    return key


def _authorized(request: Request, key: str) -> bool:
    token = request.headers.get("x-amz-security-token") or request.query_params.get(
        "X-Amz-Security-Token", ""
    )
    return _allowed(token, key)


def _digest_path(key: str) -> str:
    directory, _, name = key.rpartition("/")
    return f"{directory}/.{name}.sfc-digest" if directory else f".{name}.sfc-digest"


async def put_object(request: Request) -> Response:
    key = _key(request)
    if key is None or not _authorized(request, key):
        return _error(403, "AccessDenied", "Access Denied")
    if "partNumber" in request.query_params or "uploadId" in request.query_params:
        return _error(501, "NotImplemented", "Multipart upload is not supported")
    store = _store(request)
    out = await run_in_threadpool(store.open_output, key)
    md5 = hashlib.md5()
    # Connector 5.x gzips the request body on the wire (Content-Encoding): store the file itself.
    encoded = "gzip" in request.headers.get("content-encoding", "").lower()
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoded else None
    try:
        async for chunk in request.stream():
            data = inflate.decompress(chunk) if inflate is not None else chunk
            md5.update(data)
            await run_in_threadpool(out.write, data)
        if inflate is not None:
            await run_in_threadpool(out.write, inflate.flush())
    finally:
        await run_in_threadpool(out.close)
    digest = request.headers.get("x-amz-meta-sfc-digest")
    if digest:
        with await run_in_threadpool(store.open_output, _digest_path(key)) as f:
            f.write(digest.encode())
    return Response(status_code=200, headers={"ETag": f'"{md5.hexdigest()}"'})


def _headers(store: StageStore, key: str) -> dict[str, str] | None:
    info = store.info(key)
    if info is None:
        return None
    headers = {
        "Content-Length": str(info.size),
        "Last-Modified": formatdate(info.modified.timestamp(), usegmt=True),
        "ETag": f'"{info.etag}"',
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
    }
    if store.exists(_digest_path(key)):
        with store.open_input(_digest_path(key)) as f:
            headers["x-amz-meta-sfc-digest"] = f.read().decode()
    return headers


async def head_object(request: Request) -> Response:
    key = _key(request)
    if key is None or not _authorized(request, key):
        return Response(status_code=403)
    headers = await run_in_threadpool(_headers, _store(request), key)
    if headers is None:
        return Response(status_code=404)
    return Response(status_code=200, headers=headers)


async def get_object(request: Request) -> Response:
    key = _key(request)
    if key is None or not _authorized(request, key):
        return _error(403, "AccessDenied", "Access Denied")
    store = _store(request)
    headers = await run_in_threadpool(_headers, store, key)
    if headers is None:
        return _error(404, "NoSuchKey", "The specified key does not exist.")
    size = int(headers["Content-Length"])
    start, end = 0, size - 1
    status = 200
    if m := re.fullmatch(r"bytes=(\d*)-(\d*)", request.headers.get("range", "")):
        start = int(m.group(1)) if m.group(1) else max(size - int(m.group(2) or 0), 0)
        end = int(m.group(2)) if m.group(1) and m.group(2) else size - 1
        end = min(end, size - 1)
        status = 206
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    headers["Content-Length"] = str(max(end - start + 1, 0))

    async def body() -> AsyncIterator[bytes]:
        f = await run_in_threadpool(store.open_random, key)
        try:
            await run_in_threadpool(f.seek, start)
            remaining = end - start + 1
            while remaining > 0:
                chunk = await run_in_threadpool(f.read, min(_CHUNK, remaining))
                if not chunk:
                    break
                remaining -= len(chunk)
                yield chunk
        finally:
            await run_in_threadpool(f.close)

    return StreamingResponse(body(), status_code=status, headers=headers)


async def delete_object(request: Request) -> Response:
    key = _key(request)
    if key is None or not _authorized(request, key):
        return _error(403, "AccessDenied", "Access Denied")
    store = _store(request)
    for path in (key, _digest_path(key)):
        if await run_in_threadpool(store.exists, path):
            await run_in_threadpool(store.delete, path)
    return Response(status_code=204)
