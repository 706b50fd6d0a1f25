"""The Iceberg REST error model: `{"error": {"message", "type", "code"}}` with the spec's statuses.

The status decides what clients do: 409 on a commit means "retry from fresh metadata", 5xx on a
commit means "state unknown, keep your files". See design/iceberg-rest-catalog.md section 5.
"""

from __future__ import annotations

import json

from pydantic import ValidationError
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NoSuchViewError,
    TableAlreadyExistsError,
    ViewAlreadyExistsError,
)
from pyiceberg.exceptions import ValidationError as IcebergValidationError


class RestError(Exception):
    """An error answered to the client as the spec's ErrorModel."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message

    def body(self) -> dict[str, object]:
        return {"error": {"message": self.message, "type": self.kind, "code": self.status}}


def bad_request(message: str) -> RestError:
    return RestError(400, "BadRequestException", message)


def no_such_namespace(namespace: object) -> RestError:
    return RestError(404, "NoSuchNamespaceException", f"Namespace does not exist: {namespace}")


def no_such_table(name: object) -> RestError:
    return RestError(404, "NoSuchTableException", f"Table does not exist: {name}")


def no_such_view(name: object) -> RestError:
    return RestError(404, "NoSuchViewException", f"View does not exist: {name}")


def already_exists(what: str, name: object) -> RestError:
    return RestError(409, "AlreadyExistsException", f"{what} already exists: {name}")


def commit_failed(message: str) -> RestError:
    return RestError(409, "CommitFailedException", message)


def not_authorized(message: str = "Not authorized: a valid bearer token is required") -> RestError:
    return RestError(401, "NotAuthorizedException", message)


def unsupported(message: str) -> RestError:
    return RestError(406, "UnsupportedOperationException", message)


def not_found_route(method: str, path: str) -> RestError:
    return RestError(404, "NoSuchEndpointException", f"No route for {method} {path}")


def from_exception(exc: Exception) -> RestError:
    """Maps catalog and parsing exceptions of non-commit calls to the error model."""
    if isinstance(exc, RestError):
        return exc
    if isinstance(exc, NoSuchNamespaceError):
        return RestError(404, "NoSuchNamespaceException", str(exc))
    if isinstance(exc, NoSuchTableError):
        return RestError(404, "NoSuchTableException", str(exc))
    if isinstance(exc, NoSuchViewError):
        return RestError(404, "NoSuchViewException", str(exc))
    if isinstance(exc, TableAlreadyExistsError | NamespaceAlreadyExistsError | ViewAlreadyExistsError):
        return RestError(409, "AlreadyExistsException", str(exc))
    if isinstance(exc, NamespaceNotEmptyError):
        return RestError(409, "NamespaceNotEmptyException", str(exc))
    if isinstance(exc, CommitFailedException):
        return RestError(409, "CommitFailedException", str(exc))
    if isinstance(
        exc,
        ValidationError | IcebergValidationError | json.JSONDecodeError | ValueError | KeyError | TypeError,
    ):
        return bad_request(f"Malformed request: {exc}")
    return RestError(500, "InternalServerError", f"{type(exc).__name__}: {exc}")
