"""Whether a column reference can hold a VARIANT/OBJECT/ARRAY, decided from the query text and
the stored tables' declared types (`SqlContext.column_kinds`).

Casts of semi-structured values need a run-time check of the value's tag; every other cast stays a
plain CAST. The answer is conservative: anything the SQL layer cannot see through (table
functions, FLATTEN, unknown tables, computed subquery columns) counts as "may be".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

from sqlglot import exp

from embucket_py.sql.context import SqlContext, active
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.sql.transforms.functions.flatten import COLUMNS as FLATTEN_COLUMNS
from embucket_py.sql.transforms.functions.flatten import table_function
from embucket_py.sql.transforms.source_columns import SourceColumns

SEMI_KINDS = frozenset({"VARIANT", "OBJECT", "ARRAY"})
SEMI_TYPES = (exp.DType.VARIANT, exp.DType.OBJECT, exp.DType.ARRAY)


class Source(Enum):
    SEMI = "semi"  # provides the column as a semi-structured value
    PLAIN = "plain"  # provides it with a type known not to be semi-structured
    ABSENT = "absent"  # has no such column
    UNKNOWN = "unknown"  # cannot tell


def may_be_semi_structured(column: exp.Column, ctx: SqlContext | None) -> bool:
    """True unless every source that may provide `column` is known to give a non-VARIANT type."""
    if ctx is None or ctx.column_kinds is None:
        return True
    return _resolve(column, ctx, depth=0) is not Source.PLAIN


def _resolve(column: exp.Column, ctx: SqlContext, depth: int) -> Source:
    if depth > 8:
        return Source.UNKNOWN
    name = normalize(column.this) if isinstance(column.this, exp.Identifier) else None
    if name is None:
        return Source.UNKNOWN
    qualifier = normalize(column.args["table"]) if column.args.get("table") else None
    scope = column.parent
    while scope is not None:
        if isinstance(scope, exp.Select):
            found = _in_select(scope, name, qualifier, ctx, depth)
            if found is not Source.ABSENT:
                return found
        scope = scope.parent
    return Source.UNKNOWN


def _sources(select: exp.Select) -> list[exp.Expression]:
    from_ = select.args.get("from_") or select.args.get("from")
    items: list[exp.Expression] = [from_.this] if isinstance(from_, exp.From) else []
    items += [j.this for j in select.args.get("joins") or []]
    items += list(select.args.get("laterals") or [])
    return items


def _alias_of(source: exp.Expression) -> str | None:
    alias = source.args.get("alias")
    if isinstance(alias, exp.TableAlias) and isinstance(alias.this, exp.Identifier):
        return normalize(alias.this)
    if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
        return normalize(source.this)
    return None


def _in_select(select: exp.Select, name: str, qualifier: str | None, ctx: SqlContext, depth: int) -> Source:
    answers = []
    for source in _sources(select):
        if qualifier is not None and _alias_of(source) != qualifier:
            continue
        answers.append(_from_source(source, name, ctx, depth))
    if Source.SEMI in answers or Source.UNKNOWN in answers:
        return Source.UNKNOWN if Source.UNKNOWN in answers else Source.SEMI
    return Source.PLAIN if Source.PLAIN in answers else Source.ABSENT


def _from_source(source: exp.Expression, name: str, ctx: SqlContext, depth: int) -> Source:
    alias = source.args.get("alias")
    position = None
    if isinstance(alias, exp.TableAlias) and alias.columns:
        # Renamed columns (`AS t(x, y)`): the source's column at the same position.
        names = [normalize(c) for c in alias.columns]
        if name not in names:
            return Source.ABSENT
        position = names.index(name)
    if isinstance(source, exp.Subquery | exp.Values) or (
        isinstance(source, exp.Table) and isinstance(source.this, exp.Values)
    ):
        query = source.this if isinstance(source, exp.Subquery) else source
        return _from_query(query, name, ctx, depth + 1, position)
    if position is not None:
        return Source.UNKNOWN
    if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
        table = normalize(source.this)
        ctes = SourceColumns.ctes_around(source)
        if source.args.get("db") is None and table in ctes:
            cte = ctes[table]
            cte_alias = cte.args.get("alias")
            if isinstance(cte_alias, exp.TableAlias) and cte_alias.columns:
                return Source.UNKNOWN
            return _from_query(cte.this, name, ctx, depth + 1)
        kinds = _table_kinds(source, ctx)
        if kinds is None:
            return Source.UNKNOWN
        if name not in kinds:
            return Source.ABSENT
        return Source.SEMI if kinds[name] in SEMI_KINDS else Source.PLAIN
    return Source.UNKNOWN


def _from_query(
    query: exp.Expression, name: str, ctx: SqlContext, depth: int, position: int | None = None
) -> Source:
    """What a query gives as its column `name`, or as its column at `position` when renamed."""
    if isinstance(query, exp.Subquery):
        return _from_query(query.this, name, ctx, depth, position)
    if isinstance(query, exp.SetOperation):
        left = _from_query(query.this, name, ctx, depth, position)
        right = _from_query(query.expression, name, ctx, depth, position)
        if Source.PLAIN == left == right:
            return Source.PLAIN
        return Source.UNKNOWN
    if isinstance(query, exp.Values):
        if position is None:
            return Source.UNKNOWN
        kinds = set()
        for row in query.expressions:
            values = row.expressions if isinstance(row, exp.Tuple) else [row]
            if position >= len(values):
                return Source.UNKNOWN
            kinds.add(_expression_kind(values[position], ctx, depth))
        return Source.PLAIN if kinds == {Source.PLAIN} else Source.UNKNOWN
    if not isinstance(query, exp.Select):
        return Source.UNKNOWN
    if position is not None:
        if any(isinstance(p, exp.Star) or p.find(exp.Star) for p in query.expressions):
            return Source.UNKNOWN
        if position >= len(query.expressions):
            return Source.UNKNOWN
        return _expression_kind(query.expressions[position].unalias(), ctx, depth)
    # Earlier steps spell projection aliases as quoted engine names: match them without case.
    found = set()
    for projection in query.expressions:
        if isinstance(projection, exp.Star) or (
            isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
        ):
            return Source.UNKNOWN
        if isinstance(projection, exp.Alias):
            ident = projection.args.get("alias")
        else:
            ident = projection.this if isinstance(projection, exp.Column) else None
        if not isinstance(ident, exp.Identifier) or ident.name.casefold() != name.casefold():
            continue
        found.add(_expression_kind(projection.unalias(), ctx, depth))
    if not found:
        return Source.ABSENT
    return found.pop() if len(found) == 1 else Source.UNKNOWN


def _expression_kind(node: exp.Expression, ctx: SqlContext, depth: int) -> Source:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column):
        return _resolve(node, ctx, depth + 1)
    if isinstance(node, exp.Literal | exp.Boolean | exp.Null):
        return Source.PLAIN
    if isinstance(node, exp.Cast):
        return Source.SEMI if node.to.this in SEMI_TYPES else Source.PLAIN
    if isinstance(node, exp.Predicate | exp.Connector | exp.Not):
        return Source.PLAIN
    return Source.UNKNOWN


def stored_kind(node: exp.Expression, ctx: SqlContext | None, depth: int = 0) -> str | None:
    """The type kind (TEXT, FIXED(p,s), ...) of a column, followed through the source of its SELECT
    that provides it (the only one, or the one its qualifier names): a stored table's declared
    type, or the literal or cast a CTE, subquery or VALUES gives it. None when it cannot be told."""
    if ctx is None or depth > 8 or not isinstance(node, exp.Column):
        return None
    if not isinstance(node.this, exp.Identifier):
        return None
    select = node.find_ancestor(exp.Select)
    if select is None:
        return None
    sources = _sources(select)
    qualifier = node.args.get("table")
    name = normalize(node.this)
    if len(sources) > 1 and isinstance(qualifier, exp.Identifier) and node.args.get("db") is None:
        sources = [s for s in sources if _alias_of(s) == normalize(qualifier)]
    elif len(sources) > 1 and qualifier is None:
        # Unqualified in a join (`SUM(price) / COUNT(*) FROM t JOIN u ...`, `value` of a FLATTEN):
        # the one source that has the name, when every other is known not to.
        provides = [_provides(s, name, ctx) for s in sources]
        sources = [s for s, p in zip(sources, provides, strict=True) if p is not False]
    if len(sources) != 1:
        return None
    return _kind_in_source(sources[0], name, None, ctx, depth)


def _provides(source: exp.Expression, name: str, ctx: SqlContext) -> bool | None:
    """Whether a FROM item has a column `name` (a stored table or a FLATTEN); None: cannot tell."""
    alias = source.args.get("alias")
    if table_function(source) is not None:
        names = alias.columns if isinstance(alias, exp.TableAlias) and alias.columns else FLATTEN_COLUMNS
        return name in [normalize(n) if isinstance(n, exp.Identifier) else n for n in names]
    if isinstance(alias, exp.TableAlias) and alias.columns:
        return name in [normalize(c) for c in alias.columns]
    if (
        not isinstance(source, exp.Table)
        or not isinstance(source.this, exp.Identifier)
        or ctx.column_kinds is None
    ):
        return None
    if source.args.get("db") is None and normalize(source.this) in SourceColumns.ctes_around(source):
        return None
    kinds = _table_kinds(source, ctx)
    return None if kinds is None else name in kinds


def _table_kinds(table: exp.Table, ctx: SqlContext) -> dict[str, str] | None:
    """A stored table's column kinds by name; None when they cannot be told."""
    if ctx.column_kinds is None:
        return None
    try:
        return ctx.column_kinds(qualify(table_parts(table), ctx, "query"))
    except Exception:
        return None


_FLATTEN_KINDS = {"VALUE": "VARIANT", "THIS": "VARIANT", "KEY": "TEXT", "PATH": "TEXT"}

# CTEs and VALUES tell a column's kind even when no statement context is active.
_NO_CONTEXT = SqlContext(None, None)


def kind_here(node: exp.Expression) -> str | None:
    """`stored_kind` in the statement being translated."""
    return stored_kind(node, active() or _NO_CONTEXT)


def is_binary(node: exp.Expression) -> bool:
    """A BINARY value the SQL shows: X'..', TO_BINARY, a cast to BINARY, a stored BINARY column."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.HexString | exp.ToBinary):
        return True
    if isinstance(node, exp.Cast):
        return node.to.is_type(exp.DType.BINARY, exp.DType.VARBINARY)
    if isinstance(node, exp.Anonymous):
        return node.name.lower() == "decode"  # TO_BINARY(.., 'HEX' | 'BASE64') rewritten
    return kind_here(node) == "BINARY"


def _kind_in_source(
    source: exp.Expression, name: str, position: int | None, ctx: SqlContext, depth: int
) -> str | None:
    alias = source.args.get("alias")
    if isinstance(alias, exp.TableAlias) and alias.columns:
        names = [normalize(c) for c in alias.columns]
        if name not in names:
            return None
        name, position = "", names.index(name)
    if isinstance(source, exp.Subquery):
        return _kind_in_query(source.this, name, position, ctx, depth)
    if table_function(source) is not None:
        # FLATTEN's (and SPLIT_TO_TABLE's) VALUE and THIS are VARIANTs; KEY and PATH text.
        column = FLATTEN_COLUMNS[position] if position is not None and position < 6 else name
        return _FLATTEN_KINDS.get(column)
    if isinstance(source, exp.Values):
        if position is None and name.startswith("COLUMN") and name[6:].isdigit():
            position = int(name[6:]) - 1  # VALUES without column names: COLUMN1, COLUMN2, ...
        return _kind_in_query(source, name, position, ctx, depth)
    if not isinstance(source, exp.Table) or not isinstance(source.this, exp.Identifier):
        return None
    table = normalize(source.this)
    ctes = SourceColumns.ctes_around(source)
    if source.args.get("db") is None and table in ctes:
        cte = ctes[table]
        cte_alias = cte.args.get("alias")
        if isinstance(cte_alias, exp.TableAlias) and cte_alias.columns and position is None:
            names = [normalize(c) for c in cte_alias.columns]
            if name not in names:
                return None
            position = names.index(name)
        return _kind_in_query(cte.this, name, position, ctx, depth)
    if position is not None:
        return None
    return (_table_kinds(source, ctx) or {}).get(name)


def _kind_in_query(
    query: exp.Expression, name: str, position: int | None, ctx: SqlContext, depth: int
) -> str | None:
    if isinstance(query, exp.Values):
        rows = query.expressions
        if position is None or not rows:
            return None
        values = [row.expressions if isinstance(row, exp.Tuple) else [row] for row in rows]
        if any(position >= len(v) for v in values):
            return None
        first = _kind_of_value(values[0][position], ctx, depth)
        return _numbers_agree(first, lambda: [_kind_of_value(v[position], ctx, depth) for v in values[1:]])
    if isinstance(query, exp.SetOperation):
        first = _kind_in_query(query.this, name, position, ctx, depth)
        # The other branch's column at the same place (a set operation's names are its first's).
        at = position if position is not None else _position(query.this, name)
        return _numbers_agree(
            first, lambda: [None if at is None else _kind_in_query(query.expression, "", at, ctx, depth)]
        )
    if not isinstance(query, exp.Select):
        return None
    projections = query.expressions
    if len(projections) == 1 and isinstance(projections[0], exp.Star):
        inner = _sources(query)
        return _kind_in_source(inner[0], name, position, ctx, depth + 1) if len(inner) == 1 else None
    if position is not None:
        if position >= len(projections):
            return None
        return _kind_of_value(projections[position].unalias(), ctx, depth)
    at = _position(query, name)
    return None if at is None else _kind_of_value(projections[at].unalias(), ctx, depth)


def _position(query: exp.Expression, name: str) -> int | None:
    """Where the column `name` is among the projections of a query's first SELECT."""
    while isinstance(query, exp.SetOperation | exp.Subquery):
        query = query.this
    if not isinstance(query, exp.Select):
        return None
    for i, projection in enumerate(query.expressions):
        ident = projection.args.get("alias") if isinstance(projection, exp.Alias) else projection.this
        if isinstance(ident, exp.Identifier) and ident.name.casefold() == name.casefold():
            return i
    return None


def _numbers_agree(first: str | None, others: Callable[[], list[str | None]]) -> str | None:
    """The first branch's kind decides; a NUMBER's only when every branch is a NUMBER, then with
    the largest scale (the common type, as Snowflake and DataFusion both type the column; its
    scale decides how it is averaged and divided)."""
    if first is None or not first.startswith("FIXED"):
        return first
    scales = [fixed_scale(kind) for kind in [first, *others()]]
    if any(scale is None for scale in scales):
        return None
    return first if len(set(scales)) == 1 else f"FIXED(38,{max(scales)})"  # type: ignore[type-var]


def fixed_parts(kind: str | None) -> tuple[int, int] | None:
    """The precision and scale of a FIXED(p,s) kind; None for other kinds."""
    match = re.fullmatch(r"FIXED\((\d+),(\d+)\)", kind or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def fixed_scale(kind: str | None) -> int | None:
    """The scale of a FIXED(p,s) kind; None for other kinds."""
    parts = fixed_parts(kind)
    return parts[1] if parts else None


def _literal_kind(node: exp.Literal) -> str:
    """TEXT, REAL (an exponent) or FIXED(38,s) with the digits after the point."""
    if node.is_string:
        return "TEXT"
    text = node.name.lower()
    if "e" in text:
        return "REAL"
    return f"FIXED(38,{len(text.split('.')[1]) if '.' in text else 0})"


# The kinds a query's cast gives its column (a wall clock or an instant decides how it converts).
_TEMPORAL_CASTS = {
    exp.DType.DATE: "DATE",
    exp.DType.TIMESTAMP: "TIMESTAMP_NTZ",
    exp.DType.TIMESTAMPNTZ: "TIMESTAMP_NTZ",
    exp.DType.TIMESTAMPLTZ: "TIMESTAMP_LTZ",
    exp.DType.TIMESTAMPTZ: "TIMESTAMP_TZ",
}


def _kind_of_value(node: exp.Expression, ctx: SqlContext, depth: int) -> str | None:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column):
        return stored_kind(node, ctx, depth + 1)
    if isinstance(node, exp.Literal):
        return _literal_kind(node)
    if isinstance(node, exp.Cast) and node.to.is_type(*exp.DataType.TEXT_TYPES):
        return "TEXT"
    if isinstance(node, exp.CurrentTimestamp) and not node.args.get("sysdate"):
        return "TIMESTAMP_LTZ"
    if isinstance(node, exp.Anonymous) and node.name.upper() == "ARROW_CAST" and len(node.expressions) == 2:
        target = node.expressions[1].name  # as the date/time rewrites type their results
        if target.startswith("Timestamp"):
            return "TIMESTAMP_NTZ" if "None" in target else "TIMESTAMP_LTZ"
    if isinstance(node, exp.Cast):
        return _TEMPORAL_CASTS.get(node.to.this)
    if not isinstance(node, exp.Column) and is_binary(node):
        return "BINARY"
    return None
