"""Stage file io over pyarrow filesystems: the same calls for file:// and s3:// roots.

Internal stages live under the warehouse (`<warehouse>/.stages/...`); external stages name their
own root (URL, CREDENTIALS, ENDPOINT).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, BinaryIO
from urllib.parse import unquote, urlparse

import pyarrow.fs as pafs

from embucket_py.catalog import storage
from embucket_py.errors import Unsupported

INTERNAL_DIR = ".stages"
SIDECARS = (".md5", ".sfc-digest")  # hidden notes beside stage files
_READ_BLOCK = 8 << 20


@dataclass(frozen=True)
class StagedFile:
    """One file in a stage: its path below the stage root, full URI, size and modification time."""

    path: str
    uri: str
    size: int
    modified: datetime

    @property
    def etag(self) -> str:
        """What load history compares: a changed file (new size or time) loads again."""
        return f"{self.size}-{int(self.modified.timestamp() * 1000)}"


def _s3(credentials: dict[str, Any], endpoint: str | None) -> pafs.S3FileSystem:
    args: dict[str, Any] = {}
    if credentials.get("AWS_KEY_ID"):
        args["access_key"] = credentials["AWS_KEY_ID"]
        args["secret_key"] = credentials.get("AWS_SECRET_KEY", "")
        if credentials.get("AWS_TOKEN"):
            args["session_token"] = credentials["AWS_TOKEN"]
    if endpoint:
        parsed = urlparse(endpoint if "://" in endpoint else f"https://{endpoint}")
        args["endpoint_override"] = parsed.netloc
        args["scheme"] = parsed.scheme
    args["region"] = credentials.get("AWS_REGION") or "us-east-1"
    return pafs.S3FileSystem(**args, retry_strategy=storage.PatientRetries())


class StageStore:
    """The files below one root URI (file:// or s3://)."""

    def __init__(self, root: str, credentials: dict[str, Any] | None = None, endpoint: str | None = None):
        parsed = urlparse(root)
        self.root = root if root.endswith("/") else root + "/"
        if parsed.scheme in ("", "file"):
            self.fs: pafs.FileSystem = pafs.LocalFileSystem()
            self.base = unquote(parsed.path if parsed.scheme else root).rstrip("/")
            self.local = True
        elif storage.is_s3(root) and not credentials and not endpoint:
            # An internal stage on an s3:// warehouse (or a bucket configured for the server).
            self.fs, self.base = storage.filesystem(storage.normalize(root))
            self.local = False
        elif storage.is_s3(root):
            self.fs = _s3(credentials or {}, endpoint)
            self.base = f"{parsed.netloc}{unquote(parsed.path)}".rstrip("/")
            self.local = False
        else:
            raise Unsupported(f"Stage location scheme '{parsed.scheme}' is not supported.")

    def _full(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}" if path else self.base

    def uri(self, path: str) -> str:
        return self.root + path.lstrip("/")

    def local_path(self, path: str) -> str:
        """The filesystem path of a file of a local stage."""
        if not self.local:
            raise Unsupported("This operation needs a stage on the local file system.")
        return self._full(path)

    def list(self, prefix: str = "", pattern: str | None = None) -> list[StagedFile]:
        """Files whose path starts with `prefix` (and fully matches the regex `pattern`), by path."""
        directory, _, _ = prefix.rpartition("/")
        info = self.fs.get_file_info(self._full(directory))
        if info.type != pafs.FileType.Directory:
            return []
        selector = pafs.FileSelector(self._full(directory), recursive=True, allow_not_found=True)
        regex = re.compile(pattern) if pattern else None
        found = []
        for entry in self.fs.get_file_info(selector):
            if entry.type != pafs.FileType.File:
                continue
            path = entry.path[len(self.base) + 1 :]
            if not path.startswith(prefix) or "/." in f"/{path}":
                continue
            if regex is not None and not regex.fullmatch(path):
                continue
            modified = entry.mtime or datetime.now(UTC)
            modified = modified if modified.tzinfo else modified.replace(tzinfo=UTC)
            found.append(StagedFile(path, self.uri(path), entry.size or 0, modified))
        return sorted(found, key=lambda f: f.path)

    def exists(self, path: str) -> bool:
        return self.fs.get_file_info(self._full(path)).type == pafs.FileType.File

    def info(self, path: str) -> StagedFile | None:
        entry = self.fs.get_file_info(self._full(path))
        if entry.type != pafs.FileType.File:
            return None
        modified = entry.mtime or datetime.now(UTC)
        modified = modified if modified.tzinfo else modified.replace(tzinfo=UTC)
        return StagedFile(path, self.uri(path), entry.size or 0, modified)

    def open_input(self, path: str) -> BinaryIO:
        # compression=None: the bytes as stored; formats decide how to decompress.
        return self.fs.open_input_stream(  # type: ignore[no-any-return]
            self._full(path), compression=None
        )

    def open_random(self, path: str) -> BinaryIO:
        return self.fs.open_input_file(self._full(path))  # type: ignore[no-any-return]

    def open_output(self, path: str) -> BinaryIO:
        full = self._full(path)
        if self.local:
            self.fs.create_dir(full.rpartition("/")[0], recursive=True)
        return self.fs.open_output_stream(full, compression=None)  # type: ignore[no-any-return]

    def delete(self, path: str) -> None:
        """Deletes a file and the hidden notes kept beside it (digests)."""
        self.fs.delete_file(self._full(path))
        directory, _, name = path.rpartition("/")
        for suffix in SIDECARS:
            note = f"{directory}/.{name}{suffix}" if directory else f".{name}{suffix}"
            if self.exists(note):
                self.fs.delete_file(self._full(note))

    def delete_all(self) -> None:
        """Removes the whole root (DROP STAGE of an internal stage)."""
        if self.fs.get_file_info(self.base).type == pafs.FileType.Directory:
            self.fs.delete_dir(self.base)

    def move(self, path: str, to: str) -> bool:
        """Moves the folder `path` (everything below it) to `to`: one rename on a local disk, each
        object copied then the folder deleted on S3. False when there is no such folder."""
        source, target = self._full(path), self._full(to)
        if self.fs.get_file_info(source).type != pafs.FileType.Directory:
            return False
        if self.local:
            self.fs.create_dir(target.rpartition("/")[0], recursive=True)
            self.fs.move(source, target)
            return True
        for entry in self.fs.get_file_info(pafs.FileSelector(source, recursive=True)):
            if entry.type == pafs.FileType.File:
                self.fs.copy_file(entry.path, target + entry.path[len(source) :])
        self.fs.delete_dir(source)
        return True

    def digest(self, path: str, algorithm: str = "md5") -> str:
        h = hashlib.new(algorithm)
        with self.open_input(path) as f:
            while block := f.read(_READ_BLOCK):
                h.update(block)
        return h.hexdigest()


def cached_md5(store: StageStore, file: StagedFile) -> str:
    """The MD5 of a stage file, kept beside it (hidden) so LIST reads each file once."""
    directory, _, name = file.path.rpartition("/")
    sidecar = f"{directory}/.{name}{SIDECARS[0]}" if directory else f".{name}{SIDECARS[0]}"
    if store.exists(sidecar):
        with store.open_input(sidecar) as f:
            etag, _, md5 = f.read().decode().partition(" ")
        if etag == file.etag:
            return md5
    md5 = store.digest(file.path)
    with store.open_output(sidecar) as f:
        f.write(f"{file.etag} {md5}".encode())
    return md5


def internal_root(warehouse: str) -> str:
    """Where internal stages keep their files: a folder of the warehouse Iceberg never uses."""
    return f"{warehouse.rstrip('/')}/{INTERNAL_DIR}"
