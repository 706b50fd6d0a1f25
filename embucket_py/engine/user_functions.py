"""User-defined SQL functions, inlined where they are called.

A scalar function's call becomes `CAST((<body>) AS <returns>)`, its arguments (cast to their
declared types) standing where the body names them; a body that is a query becomes a scalar
subquery. A tabular function (RETURNS TABLE) in `FROM TABLE(f(...))` becomes a subquery whose
columns carry the declared names and types. Tables the body names are resolved in the
function's own schema. The engine then plans the whole statement at once: the optimizer sees
through the call, and no row goes through Python.
https://docs.snowflake.com/en/developer-guide/udf/sql/udf-sql-introduction
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.catalog.grants import Securable
from embucket_py.catalog.routines import FUNCTION, Routine
from embucket_py.catalog.tables import Tables
from embucket_py.engine import access
from embucket_py.errors import InvalidArgumentTypes, SqlCompilationError
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize
from embucket_py.sql.parse import parse

# A function whose body calls functions that call it again never ends: refused.
MAX_DEPTH = 16
_POSITION_KEYS = ("line", "col", "start", "end")


class Functions:
    """The user functions a statement's roles may call, looked up once per name: those of a
    schema the roles see (a function runs with its owner's rights, checked when it was created)."""

    def __init__(self, tables: Tables, ctx: SqlContext) -> None:
        self.tables, self.ctx = tables, ctx
        self._roles: set[str] | None = None  # the statement's, once a call is looked up
        self._found: dict[tuple[str, str, str], list[Routine]] = {}

    def named(self, database: str, schema: str, name: str) -> list[Routine]:
        key = (database, schema, name)
        if key not in self._found:
            grants = self.tables.metastore.grants
            if self._roles is None:
                self._roles = access.context_roles(grants, self.ctx)
            usable = access.visible(grants, self._roles, Securable("SCHEMA", database, schema))
            self._found[key] = self.tables.routines.list(FUNCTION, *key) if usable else []
        return self._found[key]


def calls_any(functions: Functions, tree: exp.Expression, database: str | None, schema: str | None) -> bool:
    """Whether the statement calls a user-defined function (only calls of functions sqlglot does
    not know are looked up: one metastore query per name)."""
    return any(_resolve(functions, call, database, schema)[1] for call in tree.find_all(exp.Anonymous))


def expand(
    functions: Functions, tree: exp.Expression, database: str | None, schema: str | None, depth: int = 0
) -> None:
    """Replaces (in place) each call of a user-defined function in `tree`; names without a
    database or schema resolve in `database` / `schema`."""
    for call in list(tree.find_all(exp.Anonymous)):
        node, routine = _resolve(functions, call, database, schema)
        if routine is None:
            continue
        if depth >= MAX_DEPTH:
            raise SqlCompilationError(f"Function {routine.name} calls itself (or nests too deeply).")
        table_call = isinstance(node.parent, exp.TableFromRows)
        if routine.returns_table != table_call:
            use = "in FROM TABLE(...)" if routine.returns_table else "as a scalar expression"
            raise SqlCompilationError(f"Function {routine.name} can only be called {use}.")
        arguments = _arguments(routine, call)
        if table_call:
            holder = node.parent
            replacement = _table(routine, arguments, holder.args.get("alias"))
            expand(functions, replacement.this, routine.database, routine.schema, depth + 1)
            holder.replace(replacement)
        else:
            replacement = _unplaced(_scalar(routine, arguments))
            expand(functions, replacement, routine.database, routine.schema, depth + 1)
            # Where the call was written: the result column is named after that text.
            starts = [n.meta["start"] for n in node.walk() if "start" in n.meta]
            if starts:
                replacement.meta["start"] = min(starts)
            node.replace(replacement)


def _resolve(
    functions: Functions, call: exp.Anonymous, database: str | None, schema: str | None
) -> tuple[exp.Expression, Routine | None]:
    """The node the call stands as (`db.schema.f(...)` is a Dot chain) and the function it calls."""
    node: exp.Expression = call
    parts = [normalize(call.this) if isinstance(call.this, exp.Identifier) else call.name.upper()]
    parent = call.parent
    if isinstance(parent, exp.Dot) and parent.expression is call:
        qualifier = list(parent.this.flatten()) if isinstance(parent.this, exp.Dot) else [parent.this]
        if not all(isinstance(q, exp.Identifier) for q in qualifier) or len(qualifier) > 2:
            return node, None
        parts = [normalize(q) for q in qualifier] + parts
        node = parent
    key = tuple([*(database, schema)[: 3 - len(parts)], *parts])
    if len(key) != 3 or None in key:
        return node, None
    routines = functions.named(*key)  # type: ignore[arg-type]
    given = len(call.expressions)
    fitting = next((r for r in routines if r.takes(given)), None)
    if routines and fitting is None:
        raise InvalidArgumentTypes(
            f"Invalid argument types for function '{key[2]}': {given} argument(s) given."
        )
    return node, fitting


def _arguments(routine: Routine, call: exp.Anonymous) -> dict[str, exp.Expression]:
    """Each argument's value, cast to its declared type (defaults for the ones left out)."""
    named = {normalize(a.this) if isinstance(a.this, exp.Identifier) else a.this.name.upper(): a.expression
             for a in call.expressions if isinstance(a, exp.Kwarg)}  # fmt: skip
    positional = [a for a in call.expressions if not isinstance(a, exp.Kwarg)]
    values = {}
    for i, (name, type_text, default) in enumerate(routine.arguments):
        if i < len(positional):
            value = positional[i].copy()
        elif name in named:
            value = named[name].copy()
        elif default is not None:
            value = _unplaced(_expression(default))
        else:
            raise SqlCompilationError(f"Missing argument {name} in the call of {routine.name}.")
        values[name] = exp.cast(value, exp.DataType.build(type_text, dialect="snowflake"))
    return values


def parse_body(text: str, returns_table: bool) -> exp.Expression:
    """A function's body: a query (a tabular function's, or a scalar one's written as SELECT),
    else an expression. Raises SyntaxError_ when it does not parse."""
    text = text.strip()
    if returns_table or text.lstrip("(").lstrip()[:6].upper() in ("SELECT", "WITH"):
        return parse(text)[0]
    return _expression(text)


def _expression(text: str) -> exp.Expression:
    (select,) = parse(f"SELECT {text}")
    return select.expressions[0]  # type: ignore[attr-defined,no-any-return]


def qualified_body(text: str, returns_table: bool, database: str, schema: str) -> exp.Expression:
    """A function's body parsed, the tables it names resolved in the function's schema."""
    body = _unplaced(parse_body(text, returns_table))
    ctes = {normalize(c.args["alias"].this) for c in body.find_all(exp.CTE) if c.args.get("alias")}
    for table in list(body.find_all(exp.Table)):
        if not isinstance(table.this, exp.Identifier) or normalize(table.this) in ctes:
            continue
        if not table.args.get("db"):
            table.set("db", _identifier(schema))
        if not table.args.get("catalog"):
            table.set("catalog", _identifier(database))
    return body


def _body(routine: Routine, arguments: dict[str, exp.Expression]) -> exp.Expression:
    """The body, its arguments replaced by their values."""
    body = qualified_body(routine.body, routine.returns_table, routine.database, routine.schema)

    def replace(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and normalize(node.this) in arguments:
            return exp.Paren(this=arguments[normalize(node.this)].copy())
        return node

    return body.transform(replace, copy=False)


def _identifier(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=name != name.upper())


def _unplaced(tree: exp.Expression) -> exp.Expression:
    """Without the positions of the text it was parsed from (they would name result columns)."""
    for node in tree.walk():
        for key in _POSITION_KEYS:
            node.meta.pop(key, None)
    return tree


def _scalar(routine: Routine, arguments: dict[str, exp.Expression]) -> exp.Expression:
    body = _body(routine, arguments)
    value = exp.Subquery(this=body) if isinstance(body, exp.Query) else exp.Paren(this=body)
    return exp.cast(value, exp.DataType.build(routine.returns, dialect="snowflake"))


def _table(
    routine: Routine, arguments: dict[str, exp.Expression], alias: exp.TableAlias | None
) -> exp.Subquery:
    """FROM TABLE(f(...)): the body as a subquery, its columns named and typed as declared."""
    body = _body(routine, arguments)
    columns = _returned_columns(routine)
    names = [exp.to_identifier(f"c{i}") for i in range(len(columns))]
    inner = exp.TableAlias(this=exp.to_identifier("__udtf"), columns=names)
    select = exp.select(
        *(exp.alias_(exp.cast(exp.column(f"c{i}", "__udtf"), t), n, quoted=n != n.upper())
          for i, (n, t) in enumerate(columns))
    ).from_(exp.Subquery(this=body, alias=inner))  # fmt: skip
    outer = alias.copy() if alias is not None else exp.TableAlias(this=exp.to_identifier(routine.name))
    return exp.Subquery(this=select, alias=outer)


def _returned_columns(routine: Routine) -> list[tuple[str, exp.DataType]]:
    (create,) = parse(f"CREATE TABLE t {routine.returns.strip()[len('TABLE') :].strip()}")
    schema = create.this
    return [
        (normalize(c.this), c.args.get("kind") or exp.DataType.build("VARIANT", dialect="snowflake"))
        for c in schema.expressions
        if isinstance(c, exp.ColumnDef)
    ]
