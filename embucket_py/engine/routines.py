"""Stored procedures (Snowflake Scripting) and user-defined functions (SQL): CREATE, DROP,
DESCRIBE, SHOW, and CALL for procedures (functions are inlined where called: user_functions.py).

A CALL binds the arguments as variables of the body's block and runs it with the scripting
interpreter in the caller's session; the result is one value named after the procedure, or the
table of RETURN TABLE(...) for RETURNS TABLE.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from sqlglot import exp

from embucket_py.catalog.grants import Securable
from embucket_py.catalog.routines import FUNCTION, PROCEDURE, Routine
from embucket_py.catalog.tables import Tables
from embucket_py.engine import access, javascript, python_functions, scripting
from embucket_py.engine.result import QueryResult, StatementType, constant, status
from embucket_py.errors import (
    QueryCanceled,
    SqlCompilationError,
    UnknownProcedure,
    Unsupported,
    object_not_found,
)
from embucket_py.sessions.session import Session
from embucket_py.sql import scripting as script
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize
from embucket_py.sql.routines import CallDef, RoutineDef, anonymous_procedure_def, call_def
from embucket_py.sql.user_functions import qualified_body
from embucket_py.types import MAX_VARCHAR, SfType, parse_sql_type

# Argument types as SHOW PROCEDURES / USER FUNCTIONS and DROP name them.
_SIGNATURE_NAMES = {"FIXED": "NUMBER", "TEXT": "VARCHAR", "REAL": "FLOAT"}


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


def _check_language(d: RoutineDef) -> None:
    if d.language == "JAVASCRIPT":
        if d.returns_table:
            raise Unsupported(f"{d.kind.title()}s in JAVASCRIPT return one value, not a table.")
        return
    if d.language != "SQL" and not (d.language == "PYTHON" and d.kind == FUNCTION):
        raise Unsupported(f"{d.kind.title()}s in {d.language} are not supported; LANGUAGE SQL is.")


def create(tables: Tables, session: Session, d: RoutineDef) -> QueryResult:
    _check_language(d)
    if d.kind == PROCEDURE and d.language == "SQL":  # a body that does not parse fails now, not when called
        script.parse_block(d.body)
    database, schema, name = _qualified(session, d.parts, f"CREATE {d.kind}")
    _require(tables, session, f"CREATE {d.kind}", database, schema)
    if d.language == "PYTHON":
        python_functions.require_enabled()
        if d.returns_table or d.imports:
            what = "Tabular functions" if d.returns_table else "IMPORTS of staged files"
            raise Unsupported(f"{what} in PYTHON are not supported.")
        python_functions.handler_of(d.body, d.handler, name)  # a body that does not run fails now
    elif d.kind == FUNCTION and d.language == "SQL":
        # A function runs with its owner's rights: its creator must be able to read what it reads.
        body = qualified_body(d.body, d.returns_table, database, schema)
        grants = tables.metastore.grants
        access.check(grants, session, body, SqlContext(database, schema, {}), lambda on: True)
    routine = Routine(
        d.kind,
        database,
        schema,
        name,
        ", ".join(signature_type(a.type) for a in d.arguments),
        [(a.name, a.type, a.default) for a in d.arguments],
        d.returns,
        d.language,
        d.body,
        d.comment,
        handler=d.handler,
        strict=d.strict,
    )
    if not tables.routines.create(routine, replace=d.replace, if_not_exists=d.if_not_exists):
        return status(f"{name} already exists, statement succeeded.")
    return status(f"Function {name} successfully created.")


def _require(tables: Tables, session: Session, privilege: str, database: str, schema: str) -> None:
    """Creating or dropping a routine needs CREATE PROCEDURE | FUNCTION on its schema (routines
    have no owner of their own here: the schema's privileges stand for it); using one, USAGE."""
    grants = tables.metastore.grants
    access.require(
        grants,
        access.active_roles(grants, session),
        access.Need(privilege, Securable("SCHEMA", database, schema)),
    )


def _named(
    session: Session, table: exp.Table, types: list[exp.Expression], what: str
) -> tuple[str, str, str, str]:
    """Database, schema, name and argument types of `name(type, ...)` in DROP / DESCRIBE."""
    parts = tuple(normalize(p) for p in table.parts)  # type: ignore[arg-type]
    database, schema, name = _qualified(session, parts, what)
    return database, schema, name, ", ".join(signature_type(t.sql(dialect="snowflake")) for t in types)


def drop(tables: Tables, session: Session, tree: exp.Drop) -> QueryResult:
    kind = str(tree.args["kind"]).upper()
    table = tree.this if isinstance(tree.this, exp.Table) else tree.args["tables"][0]
    database, schema, name, types = _named(session, table, tree.expressions, f"DROP {kind}")
    _require(tables, session, f"CREATE {kind}", database, schema)
    tables.routines.drop(kind, database, schema, name, types, if_exists=bool(tree.args.get("exists")))
    return status(f"{name} successfully dropped.")


def describe(tables: Tables, session: Session, tree: exp.Describe) -> QueryResult:
    """DESCRIBE PROCEDURE | FUNCTION name(type, ...): its properties, as Snowflake lists them."""
    kind = str(tree.args["kind"]).upper()
    target = tree.this
    table = target.this if isinstance(target, exp.Schema) else target
    types = target.expressions if isinstance(target, exp.Schema) else []
    database, schema, name, signature = _named(session, table, types, f"DESCRIBE {kind}")
    _require(tables, session, "USAGE", database, schema)
    found = [p for p in tables.routines.list(kind, database, schema, name) if p.signature == signature]
    if not found:
        raise object_not_found(kind.title(), f"{database}.{schema}.{name}({signature})")
    p = found[0]
    returns = p.returns if p.returns_table else scripting.declared_type(p.returns).sql
    rows = [
        ("signature", f"({', '.join(f'{n} {signature_type(t)}' for n, t, _ in p.arguments)})"),
        ("returns", returns),
        ("language", p.language),
        ("null handling", "RETURNS NULL ON NULL INPUT" if p.strict else "CALLED ON NULL INPUT"),
        ("volatility", "VOLATILE"),
        ("body", p.body),
        ("execute as", "OWNER"),
    ]
    if p.handler:
        rows.insert(3, ("handler", p.handler))
    return constant([("property", scripting.TEXT), ("value", scripting.TEXT)], rows, StatementType.DESCRIBE)


def show_rows(
    kind: str, tables: Tables, session: Session, schemas: Iterator[tuple[str, str]]
) -> Iterator[dict[str, Any]]:
    """SHOW PROCEDURES / SHOW USER FUNCTIONS: those of the schemas the session's roles see."""
    grants = tables.metastore.grants
    roles = access.active_roles(grants, session)
    for database, schema in schemas:
        if not access.visible(grants, roles, Securable("SCHEMA", database, schema)):
            continue
        for p in tables.routines.list(kind, database, schema):
            required = sum(1 for a in p.arguments if a[2] is None)
            created = p.created_on or datetime.now(UTC)
            yield {
                "created_on": created if created.tzinfo else created.replace(tzinfo=UTC),
                "name": p.name,
                "schema_name": p.schema,
                "is_builtin": "N",
                "is_aggregate": "N",
                "is_ansi": "N",
                "min_num_arguments": required,
                "max_num_arguments": len(p.arguments),
                "arguments": f"{p.name}({p.signature}) RETURN {p.returns}",
                "description": p.comment or f"user-defined {kind.lower()}",
                "catalog_name": p.database,
                "is_table_function": "Y" if p.returns_table else "N",
                "valid_for_clustering": "N",
                "is_secure": "N",
                "secrets": "",
                "external_access_integrations": "",
                "is_external_function": "N",
                "language": p.language,
                "is_memoizable": "N",
            }


def call(
    engine: scripting.Engine, tables: Tables, session: Session, text: str, cancel: threading.Event | None
) -> QueryResult:
    """CALL name(args): the procedure whose arguments fit, its body run with them bound."""
    d = call_def(text)
    if d.parts == ("SYSTEM$WAIT",):
        return _wait(engine, session, d, cancel)
    database, schema, name = _qualified(session, d.parts, "CALL")
    _require(tables, session, "USAGE", database, schema)
    given = len(d.arguments) + len(d.named)
    candidates = [p for p in tables.routines.list(PROCEDURE, database, schema, name) if p.takes(given)]
    if not candidates:
        raise UnknownProcedure(f"Unknown user-defined function {database}.{schema}.{name}.")
    return _run(engine, session, candidates[0], d, cancel)


# SYSTEM$WAIT's units, in seconds. https://docs.snowflake.com/en/sql-reference/functions/system_wait
_WAIT_UNITS = {
    "DAYS": 86400.0,
    "HOURS": 3600.0,
    "MINUTES": 60.0,
    "SECONDS": 1.0,
    "MILLISECONDS": 1e-3,
    "MICROSECONDS": 1e-6,
    "NANOSECONDS": 1e-9,
}


def _wait(
    engine: scripting.Engine, session: Session, d: CallDef, cancel: threading.Event | None
) -> QueryResult:
    """CALL SYSTEM$WAIT(amount [, 'unit']): sleeps (a cancel ends it at once), then says so.

    Raises:
        SqlCompilationError: a unit it does not know, or a wrong number of arguments.
        QueryCanceled: the statement was canceled while it waited.
    """
    if not 1 <= len(d.arguments) <= 2 or d.named:
        raise SqlCompilationError("SYSTEM$WAIT takes an amount and an optional time unit.")
    caller = scripting.Interpreter(engine, session, cancel)
    amount = caller.uncaught(lambda: caller.evaluate(d.arguments[0], "FLOAT")).value
    unit = (
        str(caller.uncaught(lambda: caller.evaluate(d.arguments[1])).value)
        if len(d.arguments) == 2
        else "SECONDS"
    )
    if unit.upper() not in _WAIT_UNITS or not isinstance(amount, int | float) or amount < 0:
        raise SqlCompilationError(f"Invalid argument for SYSTEM$WAIT: {d.arguments[0]}, '{unit}'.")
    if (cancel or threading.Event()).wait(amount * _WAIT_UNITS[unit.upper()]):
        raise QueryCanceled("SQL execution canceled")
    shown = int(amount) if float(amount).is_integer() else amount
    waited = f"waited {shown} {unit.lower()}"
    return constant([("SYSTEM$WAIT", SfType("TEXT", length=MAX_VARCHAR))], [(waited,)], StatementType.SELECT)


def call_anonymous(
    engine: scripting.Engine, session: Session, text: str, cancel: threading.Event | None
) -> QueryResult:
    """WITH name AS PROCEDURE ... CALL name(args): a procedure defined for this one call."""
    d, call_d = anonymous_procedure_def(text)
    _check_language(d)
    if call_d.parts != d.parts:
        raise UnknownProcedure(f"Unknown user-defined function {'.'.join(call_d.parts)}.")
    arguments = [(a.name, a.type, a.default) for a in d.arguments]
    procedure = Routine(PROCEDURE, "", "", d.parts[0], "", arguments, d.returns, d.language, d.body, None)
    return _run(engine, session, procedure, call_d, cancel)


def _run(
    engine: scripting.Engine, session: Session, procedure: Routine, d: CallDef, cancel: threading.Event | None
) -> QueryResult:
    # Arguments are evaluated in the caller's session (a block binds its variables into the CALL
    # before it gets here), then become the body's variables, cast to their declared types.
    caller = scripting.Interpreter(engine, session, cancel)
    values = dict(zip((a[0] for a in procedure.arguments), d.arguments, strict=False))
    values |= dict(d.named)
    interpreter = scripting.Interpreter(engine, session, cancel)
    for arg_name, arg_type, default in procedure.arguments:
        expression = values.get(arg_name, default)
        if expression is None:
            raise SqlCompilationError(f"Missing argument {arg_name} in the call of {procedure.name}.")
        value = caller.uncaught(lambda e=expression, t=arg_type: caller.evaluate(e, t))
        interpreter.scopes[0][arg_name] = scripting.Variable(value, arg_type)
    if procedure.language == "JAVASCRIPT":
        arguments = [interpreter.scopes[0][name].value for name, _, _ in procedure.arguments]  # type: ignore[union-attr]
        return javascript.run(interpreter, procedure, arguments)
    block, _, _ = script.parse_block(procedure.body)
    returns = None if procedure.returns_table else scripting.declared_type(procedure.returns)
    result = interpreter.run_top(block, procedure.name, returns)
    result.statement_type = StatementType.SELECT
    return result
