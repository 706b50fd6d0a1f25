"""Object storage shared by pyiceberg (writes), DataFusion (reads) and stages: file:// and s3://.

Every place that touches a file goes through this module by URI:

- `read_bytes / write_bytes / list_files / delete / exists / open_input / open_output` — a small
  file API over local directories and S3-compatible buckets (stages and COPY use it);
- `iceberg_properties(location)` — the FileIO properties pyiceberg needs for a warehouse;
- `engine_path(uri)` + `register_object_stores(ctx)` — how DataFusion reads the same files.

S3 credentials are registered per bucket (`register(S3Store(...))`, from the server settings or an
external volume) and live only in memory here: `S3Store`'s repr hides them and `redact` masks
any registered secret in text bound for logs or errors.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import unquote, urlparse

import pyarrow.fs as pafs

# Spellings of S3 URIs other tools write (Spark's s3a, Snowflake's s3compat) all mean s3.
_S3_SCHEMES = ("s3", "s3a", "s3n", "s3compat")


class PatientRetries(pafs.AwsStandardS3RetryStrategy):
    """Retries throttling and 5xx answers (a busy S3 server) more than the SDK's default 3 times."""

    def __init__(self) -> None:  # pyiceberg builds it by class path, without arguments
        super().__init__(max_attempts=8)


@dataclass(frozen=True)
class S3Store:
    """One S3-compatible bucket: where it is served and the keys to it (never shown by repr)."""

    bucket: str
    endpoint: str = ""  # e.g. http://127.0.0.1:8333; empty means AWS itself
    region: str = "us-east-1"
    access_key_id: str = field(default="", repr=False)
    secret_access_key: str = field(default="", repr=False)
    session_token: str = field(default="", repr=False)

    @property
    def allow_http(self) -> bool:
        return self.endpoint.startswith("http://")

    def iceberg_properties(self) -> dict[str, str]:
        """pyiceberg FileIO properties (PyArrowFileIO, path-style requests)."""
        props = {
            "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO",
            "s3.region": self.region,
            "s3.force-virtual-addressing": "false",
            "s3.retry-strategy-impl": f"{__name__}.{PatientRetries.__name__}",
        }
        if self.endpoint:
            props["s3.endpoint"] = self.endpoint
        if self.access_key_id:
            props["s3.access-key-id"] = self.access_key_id
            props["s3.secret-access-key"] = self.secret_access_key
        if self.session_token:
            props["s3.session-token"] = self.session_token
        return props

    @cached_property
    def filesystem(self) -> pafs.S3FileSystem:
        parsed = urlparse(self.endpoint) if self.endpoint else None
        return pafs.S3FileSystem(
            access_key=self.access_key_id or None,
            secret_key=self.secret_access_key or None,
            session_token=self.session_token or None,
            region=self.region,
            endpoint_override=parsed.netloc if parsed else None,
            scheme=parsed.scheme if parsed else "https",
            force_virtual_addressing=False,
            allow_bucket_creation=True,
            retry_strategy=PatientRetries(),
        )

    def datafusion_store(self) -> Any:
        from datafusion.object_store import AmazonS3

        return AmazonS3(
            bucket_name=self.bucket,
            region=self.region,
            access_key_id=self.access_key_id or None,
            secret_access_key=self.secret_access_key or None,
            session_token=self.session_token or None,
            endpoint=self.endpoint or None,
            allow_http=self.allow_http,
        )


_stores: dict[str, S3Store] = {}
_lock = threading.Lock()


def register(store: S3Store) -> None:
    """Makes a bucket's credentials known to every reader and writer in this process."""
    with _lock:
        _stores[store.bucket] = store


def store_for(uri: str) -> S3Store | None:
    """The registered store of an s3:// URI (None for local URIs or unknown buckets)."""
    parsed = urlparse(uri)
    if parsed.scheme not in _S3_SCHEMES:
        return None
    with _lock:
        return _stores.get(parsed.netloc)


def bucket_of(uri: str) -> str:
    return urlparse(uri).netloc


def is_s3(uri: str) -> bool:
    return urlparse(uri).scheme in _S3_SCHEMES


def normalize(uri: str) -> str:
    """s3a://, s3n:// and s3compat:// spelled as s3://; everything else unchanged."""
    parsed = urlparse(uri)
    if parsed.scheme in _S3_SCHEMES and parsed.scheme != "s3":
        return "s3://" + uri.split("://", 1)[1]
    return uri


def redact(text: str) -> str:
    """Masks every registered secret key and session token in a text (for logs and errors)."""
    with _lock:
        secrets = [s for st in _stores.values() for s in (st.secret_access_key, st.session_token) if s]
    for secret in secrets:
        text = text.replace(secret, "****")
    return text


# --- locations ----------------------------------------------------------------------------------


def local_path(uri: str) -> str:
    """The filesystem path of a file:// URI (plain paths pass through)."""
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return unquote(parsed.path) if parsed.scheme else uri
    raise NotImplementedError(f"storage scheme {parsed.scheme!r} is not supported yet")


def join(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/"), *parts])


def engine_path(uri: str) -> str:
    """What DataFusion's readers take: a local path, or the s3:// URI itself."""
    return normalize(uri) if is_s3(uri) else local_path(uri)


def iceberg_properties(location: str) -> dict[str, str]:
    """FileIO properties pyiceberg needs to write under a location ({} for local ones)."""
    store = store_for(location)
    return store.iceberg_properties() if store is not None else {}


def register_object_stores(ctx: Any) -> None:
    """Lets a DataFusion SessionContext read every registered bucket."""
    with _lock:
        stores = list(_stores.values())
    for store in stores:
        ctx.register_object_store("s3://", store.datafusion_store(), store.bucket)


def filesystem(uri: str) -> tuple[pafs.FileSystem, str]:
    """A pyarrow filesystem and the path inside it for a URI.

    Raises:
        ValueError: an s3:// bucket without registered credentials or an unsupported scheme.
    """
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return pafs.LocalFileSystem(), local_path(uri)
    if parsed.scheme in _S3_SCHEMES:
        store = store_for(uri)
        if store is None:
            raise ValueError(f"no storage is configured for bucket {parsed.netloc!r}")
        return store.filesystem, f"{parsed.netloc}{unquote(parsed.path)}".rstrip("/")
    raise ValueError(f"storage scheme {parsed.scheme!r} is not supported")


def ensure_location(uri: str) -> None:
    """Creates the directory (file://) or the bucket (s3://) a warehouse lives under."""
    fs, path = filesystem(uri)
    if isinstance(fs, pafs.LocalFileSystem):
        fs.create_dir(path, recursive=True)
        return
    bucket = path.split("/", 1)[0]
    if fs.get_file_info(bucket).type == pafs.FileType.NotFound:
        fs.create_dir(bucket, recursive=False)


# --- the file API -------------------------------------------------------------------------------


def read_bytes(uri: str) -> bytes:
    fs, path = filesystem(uri)
    with fs.open_input_stream(path) as stream:
        return stream.read()


def write_bytes(uri: str, data: bytes) -> None:
    """Writes (or replaces) one whole file, creating local parent directories."""
    with open_output(uri) as stream:
        stream.write(data)


def open_input(uri: str) -> Any:
    """A random-access readable file (pyarrow NativeFile; use as a context manager)."""
    fs, path = filesystem(uri)
    return fs.open_input_file(path)


def open_output(uri: str) -> Any:
    """A writable stream that replaces the file when closed (use as a context manager)."""
    fs, path = filesystem(uri)
    if isinstance(fs, pafs.LocalFileSystem):
        fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
    return fs.open_output_stream(path)


def exists(uri: str) -> bool:
    fs, path = filesystem(uri)
    return fs.get_file_info(path).type != pafs.FileType.NotFound


def list_files(prefix: str) -> list[str]:
    """URIs of every file under a directory-like prefix, recursively, sorted ([] if none)."""
    fs, path = filesystem(prefix)
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        return []
    if info.type == pafs.FileType.File:
        return [prefix]
    base = prefix.rstrip("/")
    found = fs.get_file_info(pafs.FileSelector(path, recursive=True))
    return sorted(join(base, f.path[len(path) :].lstrip("/")) for f in found if f.type == pafs.FileType.File)


def delete(uri: str) -> None:
    """Deletes one file; a missing file is not an error."""
    fs, path = filesystem(uri)
    with contextlib.suppress(FileNotFoundError):
        fs.delete_file(path)
