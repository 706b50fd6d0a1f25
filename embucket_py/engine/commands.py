"""Session commands: USE, ALTER SESSION, BEGIN/COMMIT/ROLLBACK."""

from __future__ import annotations

from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.engine.result import QueryResult, StatementType, status
from embucket_py.errors import Unsupported, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql.names import normalize

OK = "Statement executed successfully."


def use(metastore: Metastore, session: Session, tree: exp.Use) -> QueryResult:
    """USE [DATABASE|SCHEMA|WAREHOUSE|ROLE] name.
    https://docs.snowflake.com/en/sql-reference/sql/use"""
    kind = tree.args["kind"].name.upper() if tree.args.get("kind") else ""
    target = tree.this
    name = normalize(target.this) if isinstance(target, exp.Table) else normalize(str(target))
    db = target.args.get("db") if isinstance(target, exp.Table) else None
    if kind == "WAREHOUSE":
        session.warehouse = name
    elif kind in ("ROLE", "SECONDARY ROLES"):
        session.role = name
    elif kind == "SCHEMA" or (not kind and db is not None):
        database = normalize(db) if db is not None else session.database
        if database is None or not metastore.schema_exists(database, name):
            raise object_not_found("Schema", f"{naming.quote(database or '')}.{naming.quote(name)}")
        session.database, session.schema = database, name
    elif kind in ("DATABASE", ""):
        if not metastore.database_exists(name):
            raise object_not_found("Database", naming.quote(name))
        session.database = name
        session.schema = "PUBLIC" if metastore.schema_exists(name, "PUBLIC") else None
    else:
        raise Unsupported(f"USE {kind} is not supported.")
    return status(OK, StatementType.USE)


def _value(node: exp.Expression) -> object:
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        text = node.this
        return int(text) if text.lstrip("-").isdigit() else float(text)
    if isinstance(node, exp.Neg):
        value = _value(node.this)
        return -value if isinstance(value, int | float) else value
    return node.name


def alter_session(session: Session, tree: exp.Alter, defaults: dict[str, object]) -> QueryResult:
    """ALTER SESSION SET name = value [, ...] | UNSET name [, ...].
    https://docs.snowflake.com/en/sql-reference/sql/alter-session"""
    changed: dict[str, object] = {}
    for action in tree.args.get("actions") or []:
        for item in action.expressions:
            if action.args.get("unset"):
                name = item.this.name.upper() if isinstance(item, exp.SetItem) else item.name.upper()
                session.parameters.pop(name, None)
                changed[name] = defaults.get(name)
            else:
                eq = item.this
                name = eq.this.name.upper()
                session.parameters[name] = changed[name] = _value(eq.expression)
    result = status(OK, StatementType.ALTER_SESSION)
    result.changed_parameters = changed
    return result


def transaction(tree: exp.Expression) -> QueryResult:
    """BEGIN/COMMIT/ROLLBACK. Every statement commits on its own for now (AUTOCOMMIT)."""
    if isinstance(tree, exp.Commit):
        return status(OK, StatementType.COMMIT)
    if isinstance(tree, exp.Rollback):
        return status(OK, StatementType.ROLLBACK)
    return status(OK, StatementType.BEGIN)
