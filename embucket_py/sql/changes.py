"""UPDATE, DELETE and MERGE as one shape: a target, an optional source, a join condition and
clauses; and the queries the engine runs to rewrite the affected data files (copy-on-write).

The engine registers three internal tables: `__scan` (every live row of the target, tagged with
the index of its data file in `__file`), `__target` (the rows of the affected files only, with a
unique `__row`) and `__acts` (one row per target row acted on, or per source row inserted).
https://docs.snowflake.com/en/sql-reference/sql/merge
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sqlglot import exp

from embucket_py import naming
from embucket_py.errors import InvalidIdentifier, Unsupported, width_mismatch
from embucket_py.sql.context import SqlContext
from embucket_py.sql.dml import cast_to
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.types import SfType

# The action a clause takes on a row, as stored in __acts.__action.
UPDATE, DELETE, INSERT = "U", "D", "I"
FILE, ROW, TROW, ACTION = "__file", "__row", "__trow", "__action"


@dataclass(frozen=True)
class Clause:
    action: str  # U, D or I
    matched: bool
    condition: exp.Expression | None = None
    values: dict[str, exp.Expression] = field(default_factory=dict)  # column -> new value
    positional: list[exp.Expression] | None = None  # INSERT VALUES (...) without a column list
    by_name: bool = False  # UPDATE | INSERT ALL BY NAME: values come from `by_name_values`

    def resolved(self, columns: list[str]) -> dict[str, exp.Expression]:
        if self.positional is None:
            return self.values
        if len(self.positional) != len(columns):
            raise width_mismatch(len(columns), len(self.positional))
        return dict(zip(columns, self.positional, strict=True))


@dataclass(frozen=True)
class RowChange:
    kind: str  # UPDATE DELETE MERGE
    parts: list[str]  # target database, schema, table
    alias: str  # how the statement refers to the target
    source: (
        exp.Expression | None
    )  # a table, subquery or join of them (UPDATE FROM, DELETE USING, MERGE USING)
    on: exp.Expression  # MERGE's ON, or the WHERE of UPDATE/DELETE
    clauses: list[Clause]
    # The target rows the statement may see at all (its row access policy), over `alias`.
    visible: exp.Expression | None = None

    @property
    def inserts(self) -> bool:
        return any(c.action == INSERT for c in self.clauses)


def _target(table: exp.Expression, ctx: SqlContext) -> tuple[list[str], str]:
    if not isinstance(table, exp.Table):
        raise Unsupported("Unsupported DML target.")
    parts = qualify(table_parts(table), ctx, "DML")
    alias = table.args.get("alias")
    return parts, normalize(alias.this) if alias is not None else parts[2]


def _assignments(eqs: list[exp.Expression]) -> dict[str, exp.Expression]:
    return {normalize(eq.this.this): eq.expression for eq in eqs}


def _join(sources: list[exp.Expression]) -> exp.Expression | None:
    """Several FROM/USING sources: a comma join is a cross join filtered by the condition."""
    if not sources:
        return None
    if len(sources) == 1:
        return sources[0]
    select = exp.select("*").from_(sources[0].copy())
    for other in sources[1:]:
        select = select.join(other.copy(), join_type="cross")
    return select.subquery("__src")


def _source_name(source: exp.Expression) -> exp.Identifier | None:
    """How MERGE's clauses refer to its source: its alias, or a table's own name."""
    alias = source.args.get("alias")
    name = alias.this if alias is not None else source.this if isinstance(source, exp.Table) else None
    return name if isinstance(name, exp.Identifier) else None


def _of_source(value: exp.Expression, source: exp.Expression) -> exp.Expression:
    """In WHEN NOT MATCHED ... INSERT VALUES (...) no target row exists, so a bare column name
    is the source's (dbt writes `VALUES ("ID", ...)`): qualify it with the source's name."""
    name = _source_name(source)
    if name is None:
        return value
    value = value.copy()
    for column in value.find_all(exp.Column):
        if not column.table:
            column.set("table", name.copy())
    return value


def row_change(tree: exp.Expression, ctx: SqlContext) -> RowChange:
    true = exp.true()
    if isinstance(tree, exp.Update):
        parts, alias = _target(tree.this, ctx)
        from_ = tree.args.get("from_") or tree.args.get("from")
        sources = [from_.this, *(j.this for j in from_.args.get("joins") or [])] if from_ else []
        where = tree.args.get("where")
        clause = Clause(UPDATE, True, values=_assignments(tree.expressions))
        return RowChange("UPDATE", parts, alias, _join(sources), where.this if where else true, [clause])
    if isinstance(tree, exp.Delete):
        parts, alias = _target(tree.this, ctx)
        where = tree.args.get("where")
        sources = list(tree.args.get("using") or [])
        return RowChange(
            "DELETE", parts, alias, _join(sources), where.this if where else true, [Clause(DELETE, True)]
        )
    if isinstance(tree, exp.Merge):
        parts, alias = _target(tree.this, ctx)
        clauses = []
        for when in tree.args["whens"].expressions:
            then = when.args["then"]
            condition = when.args.get("condition")
            matched = bool(when.args.get("matched"))
            if isinstance(then, exp.Update | exp.Insert) and _all_by_name(then):
                action = UPDATE if isinstance(then, exp.Update) else INSERT
                clauses.append(Clause(action, matched, condition, by_name=True))
            elif isinstance(then, exp.Update):
                clauses.append(Clause(UPDATE, matched, condition, _assignments(then.expressions)))
            elif isinstance(then, exp.Insert):
                values = [_of_source(v, tree.args["using"]) for v in then.expression.expressions]
                if then.this is None:
                    clauses.append(Clause(INSERT, matched, condition, positional=values))
                else:
                    columns = [normalize(c.this) for c in then.this.expressions]
                    clauses.append(
                        Clause(INSERT, matched, condition, dict(zip(columns, values, strict=True)))
                    )
            else:
                clauses.append(Clause(DELETE, matched, condition))
        return RowChange("MERGE", parts, alias, tree.args["using"], tree.args["on"], clauses)
    raise Unsupported("Unsupported DML statement.")


def _all_by_name(then: exp.Update | exp.Insert) -> bool:
    """UPDATE ALL BY NAME and INSERT ALL BY NAME, which sqlglot reads as `UPDATE *` / `INSERT *`."""
    if isinstance(then, exp.Update):
        return [type(e) for e in then.expressions] == [exp.Star]
    return isinstance(then.this, exp.Star)


def by_name_values(change: RowChange, target: list[str], source: list[str]) -> RowChange:
    """MERGE's ALL BY NAME clauses with their values: each target column from the source's column
    of the same name. Both must have the same columns, in any order.

    Raises:
        SqlCompilationError: as many columns on both sides is required (002020).
        InvalidIdentifier: a target column the source does not have.
    """
    assert change.source is not None
    if len(source) != len(target):
        raise width_mismatch(len(target), len(source))
    name = _source_name(change.source)
    for column in target:
        if column not in source:
            raise InvalidIdentifier(
                f"error line 1 at position 0\ninvalid identifier '{naming.quote(column)}'"
            )
    values = {c: exp.column(exp.to_identifier(c, quoted=True), name.copy() if name else None) for c in target}
    clauses = [replace(c, values=values, by_name=False) if c.by_name else c for c in change.clauses]
    return replace(change, clauses=clauses)


def _internal(name: str) -> exp.Table:
    return exp.Table(this=exp.to_identifier(name, quoted=True))


def _aliased(name: str, alias: str) -> exp.Table:
    table = _internal(name)
    table.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
    return table


def _target_rows(name: str, change: RowChange) -> exp.Expression:
    """The target (`__scan` or `__target`) under the statement's alias, only its visible rows."""
    table = _aliased(name, change.alias)
    if change.visible is None:
        return table
    rows = exp.select("*").from_(table).where(change.visible.copy())
    return exp.Subquery(this=rows, alias=exp.TableAlias(this=exp.to_identifier(change.alias, quoted=True)))


def affected_files(change: RowChange) -> exp.Select:
    """SELECT DISTINCT __file of the target rows the statement can touch."""
    select = exp.select(exp.column(FILE, change.alias, quoted=True)).distinct()
    select = select.from_(_target_rows("__scan", change))
    if change.source is not None:
        return select.join(change.source.copy(), on=change.on.copy(), join_type="inner")
    return select.where(change.on.copy())


def actions(change: RowChange, columns: list[tuple[str, SfType]]) -> exp.Select:
    """One row per target row acted on (MERGE: per source row): __trow, __action and the new value
    of every target column, computed by the first clause whose condition holds."""
    matched = exp.column(ROW, change.alias, quoted=True).is_(exp.null()).not_()
    action_cases = exp.Case()
    for clause in change.clauses:
        guard = matched if clause.matched else matched.copy().not_()
        if clause.condition is not None:
            guard = exp.and_(guard, clause.condition.copy())
        action_cases = action_cases.when(guard, exp.Literal.string(clause.action))
    projections: list[exp.Expression] = [
        exp.alias_(exp.column(ROW, change.alias, quoted=True), TROW, quoted=True),
        exp.alias_(action_cases, ACTION, quoted=True),
    ]
    names = [name for name, _ in columns]
    resolved = [c.resolved(names) for c in change.clauses]
    for i, (name, t) in enumerate(columns):
        value = exp.Case()
        for clause, values in zip(change.clauses, resolved, strict=True):
            if clause.action == DELETE:
                continue
            guard = matched if clause.matched else matched.copy().not_()
            if clause.condition is not None:
                guard = exp.and_(guard, clause.condition.copy())
            if name in values:
                new = values[name]
            elif clause.action == UPDATE:
                new = exp.column(name, change.alias, quoted=True)
            else:
                new = exp.null()
            value = value.when(guard, cast_to(new.copy(), t))
        if not value.args.get("ifs"):
            value = exp.null()
        projections.append(exp.alias_(value, f"__new{i}", quoted=True))
    select = exp.select(*projections)
    if change.kind == "MERGE":
        assert change.source is not None
        return select.from_(change.source.copy()).join(
            _target_rows("__target", change), on=change.on.copy(), join_type="left"
        )
    select = select.from_(_target_rows("__target", change))
    if change.source is not None:
        return select.join(change.source.copy(), on=change.on.copy(), join_type="inner")
    return select.where(change.on.copy())


def rewritten_rows(columns: list[str]) -> exp.Select:
    """The new content of the affected files: untouched and updated rows, without deleted ones."""
    t, a = "__tgt", "__a"
    projections = [
        exp.alias_(
            exp.Case()
            .when(
                exp.column(ACTION, a, quoted=True).eq(exp.Literal.string(UPDATE)),
                exp.column(f"__new{i}", a, quoted=True),
            )
            .else_(exp.column(name, t, quoted=True)),
            name,
            quoted=True,
        )
        for i, name in enumerate(columns)
    ]
    action = exp.column(ACTION, a, quoted=True)
    return (
        exp.select(*projections)
        .from_(_aliased("__target", t))
        .join(
            _aliased("__acts", a),
            on=exp.column(ROW, t, quoted=True).eq(exp.column(TROW, a, quoted=True)),
            join_type="left",
        )
        .where(exp.or_(action.is_(exp.null()), action.neq(exp.Literal.string(DELETE))))
    )


def inserted_rows(columns: list[str]) -> exp.Select:
    return (
        exp.select(
            *[exp.alias_(exp.column(f"__new{i}", quoted=True), n, quoted=True) for i, n in enumerate(columns)]
        )
        .from_(_internal("__acts"))
        .where(exp.column(ACTION, quoted=True).eq(exp.Literal.string(INSERT)))
    )


def truncate_target(tree: exp.TruncateTable, ctx: SqlContext) -> tuple[list[str], bool]:
    """TRUNCATE [TABLE] [IF EXISTS] name -> (qualified name, IF EXISTS)."""
    table = tree.expressions[0]
    return qualify(table_parts(table), ctx, "TRUNCATE"), bool(tree.args.get("exists"))
