"""Session commands: USE, ALTER SESSION, BEGIN/COMMIT/ROLLBACK, CREATE TEMPORARY."""

from __future__ import annotations

import threading

from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog.account_parameters import AccountParameters
from embucket_py.catalog.dropped import dropped_of
from embucket_py.catalog.metastore import Metastore
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine import ddl, transactions
from embucket_py.engine.result import OK, QueryResult, StatementType, status
from embucket_py.errors import AccessDenied, Unsupported, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql.context import SqlContext
from embucket_py.sql.ddl import ObjectDef
from embucket_py.sql.names import SourceText, normalize, qualify, table_parts


def use(metastore: Metastore, session: Session, tree: exp.Use) -> QueryResult:
    """USE [DATABASE|SCHEMA|WAREHOUSE|ROLE] name.
    https://docs.snowflake.com/en/sql-reference/sql/use"""
    kind = tree.args["kind"].name.upper() if tree.args.get("kind") else ""
    target = tree.this
    name = normalize(target.this) if isinstance(target, exp.Table) else normalize(str(target))
    db = target.args.get("db") if isinstance(target, exp.Table) else None
    if kind == "WAREHOUSE":
        session.warehouse = name
    elif kind == "SECONDARY ROLES":
        session.secondary_roles = name == "ALL"
    elif kind == "ROLE":
        grants = metastore.grants
        grants.require_role(name)
        if name not in grants.effective_roles(grants.user_roles(session.user)):
            message = f"Requested role '{name}' is not assigned to the executing user."
            raise AccessDenied(f"{message} Specify another role to activate.", code=3013)
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


def _parameter_changes(tree: exp.Alter) -> tuple[dict[str, object], list[str]]:
    """The values an ALTER SESSION (or the ALTER ACCOUNT read as one) sets, and the names it unsets."""
    values: dict[str, object] = {}
    unset: list[str] = []
    for action in tree.args.get("actions") or []:
        for item in action.expressions:
            if action.args.get("unset"):
                unset.append(item.this.name.upper() if isinstance(item, exp.SetItem) else item.name.upper())
            else:
                values[item.this.this.name.upper()] = _value(item.this.expression)
    return values, unset


def alter_session(session: Session, tree: exp.Alter, defaults: dict[str, object]) -> QueryResult:
    """ALTER SESSION SET name = value [, ...] | UNSET name [, ...]: UNSET goes back to the value
    `defaults` (the server's and the account's) give the session at login.
    https://docs.snowflake.com/en/sql-reference/sql/alter-session"""
    values, unset = _parameter_changes(tree)
    changed: dict[str, object] = dict(values)
    session.parameters.update(values)
    for name in unset:
        session.parameters.pop(name, None)
        if name in defaults:
            session.parameters[name] = defaults[name]
        changed[name] = defaults.get(name)
    result = status(OK, StatementType.ALTER_SESSION)
    result.changed_parameters = changed
    return result


def alter_account(store: AccountParameters, roles: set[str], tree: exp.Alter) -> QueryResult:
    """ALTER ACCOUNT SET name = value [, ...] | UNSET name [, ...]: the values sessions that start
    from now on begin with (a session's own ALTER SESSION still wins), ACCOUNTADMIN's to change.
    https://docs.snowflake.com/en/sql-reference/sql/alter-account"""
    if "ACCOUNTADMIN" not in roles:
        raise AccessDenied("Insufficient privileges to operate on account.")
    store.change(*_parameter_changes(tree))
    return status(OK)


def is_transaction_control(tree: exp.Expression) -> bool:
    """BEGIN, START TRANSACTION (which sqlglot reads as `START AS TRANSACTION`), COMMIT, ROLLBACK."""
    if isinstance(tree, exp.Transaction | exp.Commit | exp.Rollback):
        return True
    return (
        isinstance(tree, exp.Alias)
        and isinstance(tree.this, exp.Column)
        and tree.this.name.upper() == "START"
        and tree.alias.upper() == "TRANSACTION"
    )


def is_show_transactions(tree: exp.Expression) -> bool:
    """SHOW TRANSACTIONS, which sqlglot keeps as a raw command."""
    if not isinstance(tree, exp.Command) or tree.name.upper() != "SHOW":
        return False
    rest = tree.expression.this if isinstance(tree.expression, exp.Literal) else tree.expression
    return str(rest or "").upper().split()[:1] == ["TRANSACTIONS"]


def transaction(tables: Tables, session: Session, tree: exp.Expression) -> QueryResult:
    """BEGIN [ { WORK | TRANSACTION } ] [ NAME name ] / START TRANSACTION, COMMIT, ROLLBACK.
    https://docs.snowflake.com/en/sql-reference/sql/begin"""
    if isinstance(tree, exp.Commit):
        return transactions.commit(tables, session)
    if isinstance(tree, exp.Rollback):
        return transactions.rollback(session)
    name = None
    for mode in tree.args.get("modes") or [] if isinstance(tree, exp.Transaction) else []:
        words = str(mode).split()
        if len(words) == 2 and words[0].upper() == "NAME":
            name = normalize(exp.parse_identifier(words[1], dialect="snowflake"))
    return transactions.begin(session, name)


def create(
    tables: Tables,
    session: Session,
    d: ObjectDef,
    ctx: SqlContext,
    source: SourceText | None,
    cancel: threading.Event | None,
) -> QueryResult:
    """CREATE ...; a TEMPORARY table or view is made under a name only this session maps."""
    session_view = isinstance(tables, transactions.SessionTables)
    if d.kind in ("DATABASE", "SCHEMA"):
        existed = _exists(tables.metastore, d)
        result = ddl.create(tables, d, ctx, source, cancel)
        if not (existed and d.if_exists):  # one IF NOT EXISTS found already there is not used
            _use_created(tables.metastore, session, d)
        return result
    if d.transient and d.kind == "TABLE" and not d.temporary:
        result = ddl.create(tables, d, ctx, source, cancel)
        tables.mark_transient(TableName(*d.parts))
        return result
    if not d.temporary or d.kind not in ("TABLE", "VIEW") or not session_view:
        return ddl.create(tables, d, ctx, source, cancel)
    assert isinstance(tables, transactions.SessionTables)
    if d.kind == "TABLE" and not tables.is_temporary(TableName(*d.parts)):
        tables.make_temporary(TableName(*d.parts))
        undo = lambda: session.temporary.pop(transactions.key(TableName(*d.parts)), None)  # noqa: E731
    elif d.kind == "VIEW" and transactions.key(TableName(*d.parts)) not in session.temporary_views:
        tables.views.make_temporary(*d.parts)
        undo = lambda: session.temporary_views.pop(transactions.key(TableName(*d.parts)), None)  # noqa: E731
    else:
        return ddl.create(tables, d, ctx, source, cancel)
    try:
        return ddl.create(tables, d, ctx, source, cancel)
    except Exception:
        undo()
        raise


def _exists(metastore: Metastore, d: ObjectDef) -> bool:
    if d.kind == "DATABASE":
        return metastore.database_exists(d.parts[0])
    return metastore.schema_exists(d.parts[0], d.parts[1])


def _use_created(metastore: Metastore, session: Session, d: ObjectDef) -> None:
    """A new database (with its PUBLIC schema) or schema becomes the session's current one, as USE
    would make it. https://docs.snowflake.com/en/sql-reference/sql/create-database#usage-notes"""
    session.database = d.parts[0]
    if d.kind == "SCHEMA":
        session.schema = d.parts[1]
    else:
        session.schema = "PUBLIC" if metastore.schema_exists(d.parts[0], "PUBLIC") else None


def undrop(tables: Tables, tree: exp.Undrop, ctx: SqlContext) -> QueryResult:
    """UNDROP TABLE | SCHEMA | DATABASE | TAG: restores the latest dropped version of that name.
    https://docs.snowflake.com/en/sql-reference/sql/undrop"""
    kind = str(tree.args.get("kind") or "").upper()
    target = tree.this
    if kind not in ("TABLE", "SCHEMA", "DATABASE", "TAG") or not isinstance(target, exp.Table):
        raise Unsupported(f"UNDROP {kind} is not supported.")
    keeper = dropped_of(tables.metastore)
    if kind == "DATABASE":
        # sqlglot puts a lone UNDROP DATABASE name in `db`.
        name = normalize(target.this if target.this is not None else target.args["db"])
        keeper.undrop_database(name)
    elif kind == "SCHEMA":
        name = normalize(target.args["db"])
        database = normalize(target.args["catalog"]) if target.args.get("catalog") else ctx.database
        if database is None:
            raise object_not_found("Database", "''")
        keeper.undrop_schema(database, name)
    else:
        database, schema, name = qualify(table_parts(target), ctx, "undrop")
        (keeper.undrop_tag if kind == "TAG" else keeper.undrop_table)(database, schema, name)
    return status(f"{kind.capitalize()} {naming.quote(name)} successfully restored.")
