"""Queries over staged files: `$n`, `$1:key`, METADATA$ columns and the `@stage` in FROM become
references to the raw batch the engine registers as `__stage`.
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.sql.names import first_start

STAGE_TABLE = "__stage"
LINE = "__line"
FILENAME = "__filename"


def _path(node: exp.JSONExtract) -> tuple[str, list[exp.Expression]] | None:
    """`$1:key...`: the first key it names (a column of a named format) and the rest of the path
    (`$1:key.field[0]` goes on into that column's value)."""
    path = node.expression
    if not isinstance(path, exp.JSONPath):
        return None
    parts = [p for p in path.expressions if not isinstance(p, exp.JSONPathRoot)]
    if not parts or not isinstance(parts[0], exp.JSONPathKey):
        return None
    return str(parts[0].this), parts[1:]


def _position(node: exp.Expression) -> int | None:
    if isinstance(node, exp.Parameter) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return int(node.this.this)
    return None


def rewrite(select: exp.Select, columns: list[str] | None) -> exp.Select:
    """The query over `__stage`. `columns` are the raw column names of named formats (Parquet,
    JSON read as columns): `$1:key` then reads that column; otherwise `$n` reads `cn`."""
    tree = select.copy()
    for node in list(tree.find_all(exp.JSONExtract)):
        if columns is None or _position(node.this) != 1:
            continue
        path = _path(node)
        if path is None:
            continue
        key, rest = path
        match = key if key in columns else next((c for c in columns if c.lower() == key.lower()), None)
        if match is None:
            continue
        column = _in_place_of(node, f"n{columns.index(match)}")
        if rest:
            node.set("this", column)
            node.set("expression", exp.JSONPath(expressions=[exp.JSONPathRoot(), *rest]))
        else:
            node.replace(column)
    for node in list(tree.find_all(exp.Parameter)):
        n = _position(node)
        if n is None:
            continue
        if columns is not None and n == 1 and not isinstance(node.parent, exp.Column | exp.JSONExtract):
            # A named format's `$1` is its whole row, an OBJECT of the columns.
            pairs = [
                x
                for i, c in enumerate(columns)
                for x in (exp.Literal.string(c), exp.column(f"n{i}", quoted=True))
            ]
            node.replace(exp.func("OBJECT_CONSTRUCT_KEEP_NULL", *pairs))
            continue
        if isinstance(node.parent, exp.Column):  # `t.$1`: the file's column of alias t
            qualified = node.parent
            column = _in_place_of(qualified, f"c{n}")
            column.set("table", qualified.args.get("table"))
            if qualified.parent is tree and qualified in tree.expressions:  # named `$1`, as unqualified
                column = exp.alias_(column, exp.to_identifier(node.sql("snowflake"), quoted=True))
            qualified.replace(column)
        else:
            node.replace(_in_place_of(node, f"c{n}"))
    for node in list(tree.find_all(exp.Column)):
        name = node.name.upper()
        if name == "METADATA$FILENAME":
            node.replace(_in_place_of(node, FILENAME))
        elif name == "METADATA$FILE_ROW_NUMBER":
            node.replace(_in_place_of(node, LINE))
    for star in tree.expressions:
        if isinstance(star, exp.Star) and not star.args.get("except_"):
            # The file's columns only, not the row numbers and file names kept beside them.
            star.set("except_", [exp.column(LINE, quoted=True), exp.column(FILENAME, quoted=True)])
    from_ = tree.args.get("from_") or tree.args.get("from")
    if from_ is not None and isinstance(from_.this, exp.Table):
        alias = from_.this.args.get("alias")
        from_.this.replace(exp.Table(this=exp.to_identifier(STAGE_TABLE, quoted=True), alias=alias))
    return tree


def _in_place_of(node: exp.Expression, name: str) -> exp.Column:
    """A column reading what `node` ($1, $1:key) read, where its text began: a projection is
    named after the text the user wrote ($1:ID::INT), not after the rewrite."""
    column = exp.column(name, quoted=True)
    start = first_start(node)
    if start is not None:
        column.meta["start"] = start
    return column


def stage_reference(select: exp.Select) -> exp.Table | None:
    """The `@stage` table a query reads, when its FROM is one."""
    from_ = select.args.get("from_") or select.args.get("from")
    table = from_.this if from_ is not None else None
    is_stage = isinstance(table, exp.Table) and isinstance(table.this, exp.Var | exp.Literal)
    return table if is_stage and str(table.this.this).strip("'").startswith("@") else None


def stage_options(table: exp.Table) -> dict[str, str]:
    """(FILE_FORMAT => 'f', PATTERN => '...') written after a stage in FROM."""
    options = {}
    for key, name in (("format", "FILE_FORMAT"), ("pattern", "PATTERN")):
        value = table.args.get(key)
        if value is not None:
            options[name] = value.name
    return options
