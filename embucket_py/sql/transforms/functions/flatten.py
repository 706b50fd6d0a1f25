"""`LATERAL FLATTEN(...)` / `TABLE(FLATTEN(...))` in FROM -> an unnest of the `sf_flatten` UDF;
SPLIT_TO_TABLE and STRTOK_SPLIT_TO_TABLE are a FLATTEN of the array SPLIT / STRTOK_TO_ARRAY give.

    FROM t, LATERAL FLATTEN(input => t.v) f
 -> FROM (SELECT * EXCLUDE (__flat), get_field(__flat, 'seq') AS seq, ...
          FROM (SELECT t.*, unnest(sf_flatten(t.v, ...)) AS __flat FROM t) AS __flat_rows) AS t

The derived table keeps the left table's name, so `t.x` still resolves; the flatten's columns
are SEQ, KEY, PATH, INDEX, VALUE, THIS (a second flatten's are `<alias>$VALUE`, ...), and `f.value`
becomes a reference to them. DataFusion then plans a projection over an unnest: no Python loop.
https://docs.snowflake.com/en/sql-reference/functions/flatten
https://docs.snowflake.com/en/sql-reference/functions/split_to_table
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.names import normalize

COLUMNS = ("SEQ", "KEY", "PATH", "INDEX", "VALUE", "THIS")
_TAGGED = ("VALUE", "THIS")
_SPLITS = (exp.SplitToTable, exp.StrtokSplitToTable)


def table_function(node: exp.Expression | None) -> exp.Expression | None:
    """The table function (FLATTEN, SPLIT_TO_TABLE, STRTOK_SPLIT_TO_TABLE) a FROM item calls."""
    if isinstance(node, exp.Lateral | exp.TableFromRows) and isinstance(node.this, (exp.Explode, *_SPLITS)):
        return node.this
    return None


def _arguments(explode: exp.Expression) -> dict[str, exp.Expression]:
    if isinstance(explode, _SPLITS):
        args = {"INPUT": explode.this}
        if explode.expression is not None:
            args["DELIMITER"] = explode.expression
        return args
    args: dict[str, exp.Expression] = {}
    positional = ["INPUT", "PATH", "OUTER", "RECURSIVE", "MODE"]
    for i, arg in enumerate([explode.this, *explode.expressions]):
        if isinstance(arg, exp.Kwarg):
            args[arg.this.name.upper()] = arg.expression
        elif i < len(positional):
            args[positional[i]] = arg
    if "INPUT" not in args:
        raise Unsupported("FLATTEN needs an INPUT argument.")
    return args


def _call(name: str, *args: exp.Expression) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _flatten_call(explode: exp.Expression, args: dict[str, exp.Expression]) -> exp.Expression:
    if isinstance(explode, exp.SplitToTable):
        args = {"INPUT": _call("sf_split", args["INPUT"], args["DELIMITER"])}
    elif isinstance(explode, exp.StrtokSplitToTable):
        delimiters = args.get("DELIMITER") or exp.Literal.string(" ")
        args = {"INPUT": _call("sf_strtok_to_array", args["INPUT"], delimiters)}
    return _call(
        "sf_flatten",
        args["INPUT"],
        args.get("PATH") or exp.Literal.string(""),
        args.get("OUTER") or exp.Boolean(this=False),
        args.get("RECURSIVE") or exp.Boolean(this=False),
        args.get("MODE") or exp.Literal.string("BOTH"),
    )


def _name(node: exp.Expression) -> str | None:
    alias = node.args.get("alias")
    if alias is not None and alias.this is not None:
        return normalize(alias.this)
    if isinstance(node, exp.Table):
        return normalize(node.this)
    return None


def _columns(node: exp.Expression, mapping: dict[str, dict[str, str]], target: str) -> None:
    """Points `f.value` at the derived table's columns."""
    for column in list(node.find_all(exp.Column)):
        table = column.args.get("table")
        if table is None:
            continue
        names = mapping.get(normalize(table))
        if names is None:
            continue
        new = names.get(normalize(column.this))
        if new is None:
            continue
        column.set("this", exp.to_identifier(new))
        column.set("table", exp.to_identifier(target))


def _column_values(explode: exp.Expression) -> dict[str, exp.Expression]:
    """Each output column of the table function, read from an unnested sf_flatten struct."""

    def field(name: str) -> exp.Expression:
        return _call("get_field", exp.column("__FLAT"), exp.Literal.string(name.lower()))

    if isinstance(explode, _SPLITS):
        # INDEX counts from 1 and VALUE is a VARCHAR here.
        index = exp.Add(this=field("INDEX"), expression=exp.Literal.number(1))
        return {"SEQ": field("SEQ"), "INDEX": index, "VALUE": _call("sf_variant_text", field("VALUE"))}
    return {c: _call("sf_variant_tag", field(c)) if c in _TAGGED else field(c) for c in COLUMNS}


def _derived(
    source: exp.Expression | None,
    source_name: str | None,
    flat: exp.Expression,
    columns: dict[str, exp.Expression],
    names: dict[str, str],
    alias: str,
) -> exp.Subquery:
    marker = exp.to_identifier("__FLAT")
    unnest = exp.alias_(_call("unnest", flat), marker)
    inner = exp.Select(expressions=[unnest])
    outer_items: list[exp.Expression] = []
    if source is not None:
        star = (
            exp.Column(this=exp.Star(), table=exp.to_identifier(source_name)) if source_name else exp.Star()
        )
        inner.set("expressions", [star, unnest])
        inner.set("from_", exp.From(this=source))
        outer_items.append(exp.Star(except_=[exp.column("__FLAT")]))
    for column, value in columns.items():
        outer_items.append(exp.alias_(value, exp.to_identifier(names[column])))
    outer = exp.Select(expressions=outer_items).from_(inner.subquery("__FLAT_ROWS"))
    return outer.subquery(alias)


def _select(select: exp.Select) -> None:
    from_ = select.args.get("from") or select.args.get("from_")
    from_key = "from" if select.args.get("from") is not None else "from_"
    joins = list(select.args.get("joins") or [])
    base = from_.this if from_ is not None else None
    flattens: list[tuple[exp.Expression, exp.Expression]] = []
    if table_function(base) is not None:
        flattens.append((base, table_function(base)))  # type: ignore[arg-type]
        base = None
    rest = []
    for join in joins:
        explode = table_function(join.this)
        if explode is not None and not rest:
            flattens.append((join.this, explode))
        elif explode is not None:
            raise Unsupported("FLATTEN after an explicit JOIN is not supported.")
        else:
            rest.append(join)
    if not flattens:
        return
    if base is not None and not isinstance(base, exp.Table | exp.Subquery):
        raise Unsupported("FLATTEN over this FROM clause is not supported.")
    base_name = _name(base) if base is not None else None
    target = base_name or _name(flattens[0][0]) or "__FLATTEN"
    mapping: dict[str, dict[str, str]] = {}
    source: exp.Expression | None = base.copy() if base is not None else None
    source_name = base_name
    for i, (node, explode) in enumerate(flattens):
        alias = _name(node)
        prefix = "" if i == 0 else f"{alias or f'F{i}'}$"
        columns = _column_values(explode)
        names = {c: prefix + c for c in columns}
        args = _arguments(explode)
        holder = exp.Tuple(expressions=[v.copy() for v in args.values()])
        _columns(holder, mapping, target)
        args = dict(zip(args.keys(), holder.expressions, strict=True))
        source = _derived(source, source_name, _flatten_call(explode, args), columns, names, target)
        source_name = target
        if alias is not None:
            mapping[alias] = names
    # References in the rest of the query (projections, WHERE, ORDER BY, later joins, ...).
    for key, value in select.args.items():
        if key in ("from", "from_", "joins"):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, exp.Expression):
                _columns(item, mapping, target)
    for join in rest:
        _columns(join, mapping, target)
    select.set(from_key, exp.From(this=source))
    select.set("joins", rest or None)


def rewrite(tree: exp.Expression) -> exp.Expression:
    if not any(table_function(n) is not None for n in tree.find_all(exp.Lateral, exp.TableFromRows)):
        return tree
    for select in reversed(list(tree.find_all(exp.Select))):
        _select(select)
    return tree
