"""Object-store locations shared by pyiceberg (writes) and DataFusion (reads)."""

from __future__ import annotations

from urllib.parse import unquote, urlparse


def local_path(uri: str) -> str:
    """The filesystem path of a file:// URI (plain paths pass through)."""
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return unquote(parsed.path) if parsed.scheme else uri
    raise NotImplementedError(f"storage scheme {parsed.scheme!r} is not supported yet")


def join(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/"), *parts])
