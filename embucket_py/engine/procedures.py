"""Stored procedures written in Snowflake Scripting: CREATE, DROP, SHOW and CALL.

A CALL binds the arguments as variables of the body's block and runs it with the scripting
interpreter in the caller's session; the result is one value named after the procedure, or the
table of RETURN TABLE(...) for RETURNS TABLE.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC
from typing import Any

from sqlglot import exp

from embucket_py.catalog.procedures import Procedure
from embucket_py.catalog.tables import Tables
from embucket_py.engine import scripting
from embucket_py.engine.result import QueryResult, StatementType, constant, status
from embucket_py.errors import SqlCompilationError, Unsupported, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql import scripting as script
from embucket_py.sql.procedures import ProcedureDef, call_def
from embucket_py.types import parse_sql_type

# Argument types as SHOW PROCEDURES and DROP PROCEDURE name them.
_SIGNATURE_NAMES = {"FIXED": "NUMBER", "TEXT": "VARCHAR", "REAL": "FLOAT"}


class UnknownProcedure(SqlCompilationError):
    code = 2141
    sqlstate = "42601"


def signature_type(text: str) -> str:
    try:
        kind = parse_sql_type(text).kind
    except ValueError:
        return text.strip().upper()
    return _SIGNATURE_NAMES.get(kind, kind)


def _qualified(session: Session, parts: tuple[str, ...], what: str) -> tuple[str, str, str]:
    database, schema = session.database, session.schema
    if len(parts) == 3:
        database, schema = parts[0], parts[1]
    elif len(parts) == 2:
        schema = parts[0]
    if database is None or schema is None:
        raise SqlCompilationError(
            f"Cannot perform {what}. This session does not have a current "
            f"{'database' if database is None else 'schema'}. Call 'USE "
            f"{'DATABASE' if database is None else 'SCHEMA'}', or use a qualified name."
        )
    return database, schema, parts[-1]


def create(tables: Tables, session: Session, d: ProcedureDef) -> QueryResult:
    if d.language != "SQL":
        raise Unsupported(f"Stored procedures in {d.language} are not supported; LANGUAGE SQL is.")
    script.parse_block(d.body)  # a body that does not parse fails now, not at the first CALL
    database, schema, name = _qualified(session, d.parts, "CREATE PROCEDURE")
    procedure = Procedure(
        database,
        schema,
        name,
        ", ".join(signature_type(a.type) for a in d.arguments),
        [(a.name, a.type, a.default) for a in d.arguments],
        d.returns,
        d.language,
        d.body,
        d.comment,
    )
    created = tables.procedures.create(procedure, replace=d.replace, if_not_exists=d.if_not_exists)
    if not created:
        return status(f"{name} already exists, statement succeeded.")
    return status(f"Function {name} successfully created.")


def _named(
    session: Session, table: exp.Table, types: list[exp.Expression], what: str
) -> tuple[str, str, str, str]:
    """Database, schema, name and argument types of `name(type, ...)` in DROP / DESCRIBE."""
    parts = tuple(p.name if p.quoted else p.name.upper() for p in table.parts)  # type: ignore[attr-defined]
    database, schema, name = _qualified(session, parts, what)
    return database, schema, name, ", ".join(signature_type(t.sql(dialect="snowflake")) for t in types)


def drop(tables: Tables, session: Session, tree: exp.Drop) -> QueryResult:
    table = tree.this if isinstance(tree.this, exp.Table) else tree.args["tables"][0]
    database, schema, name, types = _named(session, table, tree.expressions, "DROP PROCEDURE")
    tables.procedures.drop(database, schema, name, types, if_exists=bool(tree.args.get("exists")))
    return status(f"{name} successfully dropped.")


def describe(tables: Tables, session: Session, tree: exp.Describe) -> QueryResult:
    """DESCRIBE PROCEDURE name(type, ...): its properties, as Snowflake lists them."""
    target = tree.this
    table = target.this if isinstance(target, exp.Schema) else target
    types = target.expressions if isinstance(target, exp.Schema) else []
    database, schema, name, signature = _named(session, table, types, "DESCRIBE PROCEDURE")
    found = [p for p in tables.procedures.list(database, schema, name) if p.signature == signature]
    if not found:
        raise object_not_found("Procedure", f"{database}.{schema}.{name}({signature})")
    p = found[0]
    returns = p.returns if p.returns.upper().startswith("TABLE") else scripting.declared_type(p.returns).sql
    rows = [
        ("signature", f"({', '.join(f'{n} {signature_type(t)}' for n, t, _ in p.arguments)})"),
        ("returns", returns),
        ("language", p.language),
        ("null handling", "CALLED ON NULL INPUT"),
        ("volatility", "VOLATILE"),
        ("body", p.body),
        ("execute as", "OWNER"),
    ]
    return constant([("property", scripting.TEXT), ("value", scripting.TEXT)], rows, StatementType.DESCRIBE)


def show_rows(tables: Tables, schemas: Iterator[tuple[str, str]]) -> Iterator[dict[str, Any]]:
    for database, schema in schemas:
        for p in tables.procedures.list(database, schema):
            required = sum(1 for a in p.arguments if a[2] is None)
            yield {
                "created_on": p.created_on if p.created_on.tzinfo else p.created_on.replace(tzinfo=UTC),
                "name": p.name,
                "schema_name": p.schema,
                "is_builtin": "N",
                "is_aggregate": "N",
                "is_ansi": "N",
                "min_num_arguments": required,
                "max_num_arguments": len(p.arguments),
                "arguments": f"{p.name}({p.signature}) RETURN {p.returns}",
                "description": p.comment or "user-defined procedure",
                "catalog_name": p.database,
                "is_table_function": "Y" if p.returns.upper().startswith("TABLE") else "N",
                "valid_for_clustering": "N",
                "is_secure": "N",
                "secrets": "",
                "external_access_integrations": "",
            }


def call(
    engine: scripting.Engine, tables: Tables, session: Session, text: str, cancel: threading.Event | None
) -> QueryResult:
    """CALL name(args): the procedure whose arguments fit, its body run with them bound."""
    d = call_def(text)
    database, schema, name = _qualified(session, d.parts, "CALL")
    given = len(d.arguments) + len(d.named)
    candidates = [
        p
        for p in tables.procedures.list(database, schema, name)
        if sum(1 for a in p.arguments if a[2] is None) <= given <= len(p.arguments)
    ]
    if not candidates:
        raise UnknownProcedure(f"Unknown user-defined function {database}.{schema}.{name}.")
    procedure = candidates[0]
    # Arguments are evaluated in the caller's session (a block binds its variables into the CALL
    # before it gets here), then become the body's variables, cast to their declared types.
    caller = scripting.Interpreter(engine, session, cancel)
    values = dict(zip((a[0] for a in procedure.arguments), d.arguments, strict=False))
    values |= dict(d.named)
    interpreter = scripting.Interpreter(engine, session, cancel)
    for arg_name, arg_type, default in procedure.arguments:
        expression = values.get(arg_name, default)
        if expression is None:
            raise SqlCompilationError(f"Missing argument {arg_name} in the call of {name}.")
        value = caller.uncaught(lambda e=expression, t=arg_type: caller.evaluate(e, t))
        interpreter.scopes[0][arg_name] = scripting.Variable(value, arg_type)
    block, _, _ = script.parse_block(procedure.body)
    returns = (
        None if procedure.returns.upper().startswith("TABLE") else scripting.declared_type(procedure.returns)
    )
    result = interpreter.run_top(block, name, returns)
    result.statement_type = StatementType.SELECT
    return result
