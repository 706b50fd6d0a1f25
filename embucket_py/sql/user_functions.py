"""User-defined SQL functions as syntax: what a call names, and the tree that replaces it.

A scalar function's call becomes `CAST((<body>) AS <returns>)`, its arguments (cast to their
declared types) standing where the body names them; a body that is a query becomes a scalar
subquery. A tabular function (RETURNS TABLE) in `FROM TABLE(f(...))` becomes a subquery whose
columns carry the declared names and types. Tables the body names are resolved in the
function's own schema. (Looking functions up and checking who may call them: engine/user_functions.py.)
https://docs.snowflake.com/en/developer-guide/udf/sql/udf-sql-introduction
"""

from __future__ import annotations

import re
from typing import Protocol

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.names import first_start, normalize
from embucket_py.sql.parse import parse

_POSITION_KEYS = ("line", "col", "start", "end")
_QUERY = re.compile(r"[\s(]*(SELECT|WITH)\b", re.IGNORECASE)


class Function(Protocol):
    """What inlining needs of a stored function (the catalog's Routine)."""

    @property
    def database(self) -> str: ...
    @property
    def schema(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> list[tuple[str, str, str | None]]: ...  # name, type, default
    @property
    def returns(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def returns_table(self) -> bool: ...


def call_target(
    call: exp.Anonymous, database: str | None, schema: str | None
) -> tuple[exp.Expression, tuple[str, str, str] | None]:
    """The node a call stands as (`db.schema.f(...)` is a Dot chain) and the qualified name it
    calls; None when the name cannot be a function's (a path of other nodes, no current schema)."""
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
    return node, key  # type: ignore[return-value]


def arguments(function: Function, call: exp.Anonymous) -> dict[str, exp.Expression]:
    """Each argument's value, cast to its declared type (defaults for the ones left out)."""
    named = {normalize(a.this) if isinstance(a.this, exp.Identifier) else a.this.name.upper(): a.expression
             for a in call.expressions if isinstance(a, exp.Kwarg)}  # fmt: skip
    positional = [a for a in call.expressions if not isinstance(a, exp.Kwarg)]
    values = {}
    for i, (name, type_text, default) in enumerate(function.arguments):
        if i < len(positional):
            value = positional[i].copy()
        elif name in named:
            value = named[name].copy()
        elif default is not None:
            value = _unplaced(_expression(default))
        else:
            raise SqlCompilationError(f"Missing argument {name} in the call of {function.name}.")
        values[name] = exp.cast(value, exp.DataType.build(type_text, dialect="snowflake"))
    return values


def parse_body(text: str, returns_table: bool) -> exp.Expression:
    """A function's body: a query (a tabular function's, or a scalar one's written as SELECT),
    else an expression. Raises SyntaxError_ when it does not parse."""
    text = text.strip()
    if returns_table or _QUERY.match(text):
        return parse(text)[0]
    return _expression(text)


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


def scalar(function: Function, values: dict[str, exp.Expression], call: exp.Expression) -> exp.Expression:
    """What replaces a scalar call: the body as a value of the declared type."""
    body = _body(function, values)
    value = exp.Subquery(this=body) if isinstance(body, exp.Query) else exp.Paren(this=body)
    replacement = _unplaced(exp.cast(value, exp.DataType.build(function.returns, dialect="snowflake")))
    # Where the call was written: the result column is named after that text.
    start = first_start(call)
    if start is not None:
        replacement.meta["start"] = start
    return replacement


def table(
    function: Function, values: dict[str, exp.Expression], alias: exp.TableAlias | None
) -> exp.Subquery:
    """What replaces FROM TABLE(f(...)): the body as a subquery, its columns named and typed as
    declared."""
    body = _body(function, values)
    columns = _returned_columns(function)
    names = [exp.to_identifier(f"c{i}") for i in range(len(columns))]
    inner = exp.TableAlias(this=exp.to_identifier("__udtf"), columns=names)
    select = exp.select(
        *(exp.alias_(exp.cast(exp.column(f"c{i}", "__udtf"), t), n, quoted=n != n.upper())
          for i, (n, t) in enumerate(columns))
    ).from_(exp.Subquery(this=body, alias=inner))  # fmt: skip
    outer = alias.copy() if alias is not None else exp.TableAlias(this=exp.to_identifier(function.name))
    return exp.Subquery(this=select, alias=outer)


def _body(function: Function, values: dict[str, exp.Expression]) -> exp.Expression:
    """The body, its arguments replaced by their values."""
    body = qualified_body(function.body, function.returns_table, function.database, function.schema)

    def replace(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and normalize(node.this) in values:
            return exp.Paren(this=values[normalize(node.this)].copy())
        return node

    return body.transform(replace, copy=False)


def _expression(text: str) -> exp.Expression:
    (select,) = parse(f"SELECT {text}")
    return select.expressions[0]  # type: ignore[attr-defined,no-any-return]


def _identifier(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=name != name.upper())


def _unplaced(tree: exp.Expression) -> exp.Expression:
    """Without the positions of the text it was parsed from (they would name result columns)."""
    for node in tree.walk():
        for key in _POSITION_KEYS:
            node.meta.pop(key, None)
    return tree


def _returned_columns(function: Function) -> list[tuple[str, exp.DataType]]:
    (create,) = parse(f"CREATE TABLE t {function.returns.strip()[len('TABLE') :].strip()}")
    return [
        (normalize(c.this), c.args.get("kind") or exp.DataType.build("VARIANT", dialect="snowflake"))
        for c in create.this.expressions
        if isinstance(c, exp.ColumnDef)
    ]
