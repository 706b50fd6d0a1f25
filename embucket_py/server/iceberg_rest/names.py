"""REST names <-> the metastore's stored names.

A REST prefix is one database (the stored name, percent-encoded); a namespace is one schema
(single level). Names are stored the way the SQL side stores them (`naming.stored`), so a table
Spark creates as `orders` or `ORDERS` is ORDERS to Snowflake clients, and `Orders` stays "Orders".
Lookups try the exact name, then the stored form, then a unique case-insensitive match, because
Spark sends names exactly as the user typed them.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote

from pyiceberg.catalog.sql import SqlCatalog

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.server.iceberg_rest.errors import bad_request, no_such_namespace

Namespace = tuple[str, ...]


def resolve(name: str, existing: Iterable[str]) -> str | None:
    """The existing name `name` refers to: exact, stored form, or the unique case-insensitive match."""
    names = list(existing)
    for candidate in (name, naming.stored(name)):
        if candidate in names:
            return candidate
    folded = [n for n in names if n.casefold() == name.casefold()]
    return folded[0] if len(folded) == 1 else None


def clash(name: str, existing: Iterable[str]) -> str | None:
    """An existing name equal to `name` ignoring case (which Snowflake SQL could not tell apart)."""
    return next((n for n in existing if n.casefold() == name.casefold()), None)


def prefix_of(database_key: str) -> str:
    return quote(database_key, safe="")


def database_key(metastore: Metastore, warehouse: str) -> str:
    """The stored name of the database a warehouse or prefix names. Raises 400 if none."""
    key = resolve(warehouse, metastore.database_keys())
    if key is None:
        raise bad_request(f"Unknown warehouse {warehouse!r}: no such database")
    return key


def single_level(namespace: Namespace) -> str:
    """The one level of a namespace; Snowflake schemas do not nest."""
    if len(namespace) != 1 or not namespace[0]:
        raise bad_request(f"Namespace {list(namespace)} must have exactly one level: a Snowflake schema")
    if "." in namespace[0]:
        raise bad_request(f"Namespace name {namespace[0]!r} must not contain '.'")
    return namespace[0]


def existing_namespace(catalog: SqlCatalog, namespace: Namespace) -> str:
    """The stored namespace a client namespace refers to. Raises 404 NoSuchNamespace."""
    if len(namespace) != 1:
        raise no_such_namespace(".".join(namespace))
    found = resolve(namespace[0], [ns[0] for ns in catalog.list_namespaces()])
    if found is None:
        raise no_such_namespace(namespace[0])
    return found


def new_name(name: str) -> str:
    """How a name created through REST is stored: like an unquoted/quoted Snowflake name."""
    return naming.stored(name)
