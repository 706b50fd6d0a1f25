"""MATCH_RECOGNIZE as two plain queries around a row-pattern matcher.

`FROM src MATCH_RECOGNIZE (PARTITION BY p ORDER BY o MEASURES ... PATTERN (...) DEFINE v AS c)`
becomes:
- an input query, run first: `src`'s rows in partition order, each with its row number in the
  partition (`__MR_RN`) and one boolean per pattern variable (its DEFINE condition; PREV / NEXT /
  LAG / LEAD read the partition's neighbouring rows as window functions);
- the matcher (engine/match_recognize.py) over those booleans: the rows of every match, each
  with its match number (`__MR_MN`), its variable (`__MR_CLS`) and its place in the match
  (`__MR_SEQ`), as a table the engine registers;
- an output query over that table, in place of the clause: the measures as aggregates per match
  (ONE ROW PER MATCH) or as window functions over the match (ALL ROWS PER MATCH, running unless
  FINAL).
https://docs.snowflake.com/en/sql-reference/constructs/match_recognize
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.nodes import Nodes

RN, MN, CLS, SEQ = "__MR_RN", "__MR_MN", "__MR_CLS", "__MR_SEQ"
VAR_PREFIX, PART_PREFIX = "__MR_V", "__MR_P"
MAX_REPEAT = 100  # bounded quantifiers are expanded into copies


# --- the pattern ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    index: int


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    item: Node
    low: int
    high: int | None  # None: unbounded
    greedy: bool = True


@dataclass(frozen=True)
class Anchor:
    start: bool  # ^ (the partition's first row) or $ (after its last)


Node = Var | Seq | Alt | Repeat | Anchor

_TOKEN = re.compile(
    r'\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")|(?P<quant>\{\s*\d*\s*(?:,\s*\d*\s*)?\}\??|[*+?]\??)'
    r"|(?P<punct>[()|^$])|(?P<other>\S+))"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind is None:
            continue
        value = m.group(kind)
        if kind == "other" or (kind == "name" and value.upper() == "PERMUTE"):
            raise Unsupported(f"MATCH_RECOGNIZE pattern element '{value}' is not supported yet.")
        out.append((kind, value))
    return out


class _PatternParser:
    def __init__(self, text: str, names: list[str]) -> None:
        self.tokens = _tokens(text)
        self.pos = 0
        self.names = names  # pattern variables in order of appearance (filled while parsing)

    def parse(self) -> Node:
        node = self._alternation()
        if self.pos != len(self.tokens):
            raise SqlCompilationError(
                f"Syntax error in MATCH_RECOGNIZE pattern near '{self.tokens[self.pos][1]}'."
            )
        return node

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _alternation(self) -> Node:
        options = [self._sequence()]
        while self._peek() == ("punct", "|"):
            self.pos += 1
            options.append(self._sequence())
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def _sequence(self) -> Node:
        items: list[Node] = []
        while (token := self._peek()) is not None and token not in (("punct", "|"), ("punct", ")")):
            items.append(self._quantified())
        if not items:
            raise SqlCompilationError("MATCH_RECOGNIZE pattern has an empty alternative.")
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def _quantified(self) -> Node:
        node = self._primary()
        while (token := self._peek()) is not None and token[0] == "quant":
            self.pos += 1
            node = _quantifier(node, token[1])
        return node

    def _primary(self) -> Node:
        kind, value = self.tokens[self.pos]
        self.pos += 1
        if (kind, value) == ("punct", "("):
            node = self._alternation()
            if self._peek() != ("punct", ")"):
                raise SqlCompilationError("MATCH_RECOGNIZE pattern has an unclosed parenthesis.")
            self.pos += 1
            return node
        if kind == "punct" and value in "^$":
            return Anchor(start=value == "^")
        if kind == "name":
            name = value[1:-1].replace('""', '"') if value.startswith('"') else value.upper()
            if name not in self.names:
                self.names.append(name)
            return Var(self.names.index(name))
        raise SqlCompilationError(f"Syntax error in MATCH_RECOGNIZE pattern near '{value}'.")


def _quantifier(node: Node, text: str) -> Node:
    greedy = not (text.endswith("?") and len(text) > 1)
    body = text[:-1] if not greedy else text
    if body == "*":
        return Repeat(node, 0, None, greedy)
    if body == "+":
        return Repeat(node, 1, None, greedy)
    if body == "?":
        return Repeat(node, 0, 1, greedy)
    low_text, _, high_text = body.strip("{} ").partition(",")
    low = int(low_text.strip() or 0)
    high = (int(high_text.strip()) if high_text.strip() else None) if "," in body else low
    if (high is not None and high < low) or max(low, high or 0) > MAX_REPEAT:
        raise SqlCompilationError(f"Invalid MATCH_RECOGNIZE quantifier '{text}'.")
    return Repeat(node, low, high, greedy)


# --- the clause ----------------------------------------------------------------------------------


@dataclass
class MatchSpec:
    """What the matcher needs: the pattern over variable indexes, and how matches follow."""

    pattern: Node
    names: list[str]  # variable names by index (CLASSIFIER() values)
    all_rows: bool
    skip: str  # PAST LAST ROW | TO NEXT ROW | TO FIRST | TO LAST
    skip_to: int | None = None  # the variable of SKIP TO FIRST / LAST
    unmatched: bool = False  # WITH UNMATCHED ROWS: rows of no match too (their measures NULL)


@dataclass
class Rewrite:
    """One MATCH_RECOGNIZE clause taken apart: run `input`, match, then `place` the output."""

    spec: MatchSpec
    input: exp.Select
    select: exp.Select  # the query whose FROM holds the clause
    output: exp.Select  # reads the matched rows from `MATCHED`
    alias: exp.TableAlias | None = None


MATCHED = "__MR_MATCHED"  # the placeholder table the output query reads; replaced by the engine


def has_match_recognize(nodes: Nodes) -> bool:
    return nodes.has(exp.MatchRecognize)


def place(rewrite: Rewrite, source: exp.Expression) -> None:
    """Replaces the clause and its source table by the output query reading `source` (the
    table of matched rows)."""
    output = rewrite.output.copy()
    for table in output.find_all(exp.Table):
        if table.name == MATCHED:
            table.replace(source.copy())
    select = rewrite.select
    select.set("match", None)
    alias = (
        rewrite.alias.copy() if rewrite.alias else exp.TableAlias(this=exp.to_identifier("MATCH_RECOGNIZE"))
    )
    select.set("from_", exp.From(this=exp.Subquery(this=output, alias=alias)))


def rewrite(node: exp.MatchRecognize) -> Rewrite:
    """One clause taken apart (its source must hold no other clause)."""
    select = node.parent
    if not isinstance(select, exp.Select) or select.args.get("joins") or not select.args.get("from_"):
        raise Unsupported("MATCH_RECOGNIZE is supported on one table or subquery in FROM, without joins.")
    source = select.args["from_"].this
    names: list[str] = []
    pattern = _PatternParser(node.args["pattern"].name, names).parse()
    defines: dict[str, exp.Expression] = {}
    for d in node.args.get("define") or []:
        name = d.alias if d.args["alias"].quoted else d.alias.upper()
        defines[name] = d.this
        if name not in names:
            raise SqlCompilationError(f"DEFINE names '{name}', which the PATTERN does not use.")
    partitions = list(node.args.get("partition_by") or [])
    order = node.args.get("order")
    if order is None:
        raise SqlCompilationError("MATCH_RECOGNIZE needs an ORDER BY.")
    rows = node.args["rows"].name.upper() if node.args.get("rows") else "ONE ROW PER MATCH"
    spec = MatchSpec(pattern, names, all_rows=rows.startswith("ALL"), skip="PAST LAST ROW")
    spec.unmatched = spec.all_rows and "UNMATCHED" in rows
    _skip(node, spec)
    window = exp.Window(
        this=exp.RowNumber(),
        partition_by=[p.copy() for p in partitions],
        order=order.copy(),
    )
    columns: list[exp.Expression] = [exp.Star()]
    columns.append(exp.alias_(window, RN))
    for i, p in enumerate(partitions):
        columns.append(exp.alias_(p.copy(), f"{PART_PREFIX}{i}"))
    for i, name in enumerate(names):
        condition = defines.get(name)
        condition = (
            exp.true() if condition is None else _navigated(condition.copy(), names, partitions, order)
        )
        columns.append(exp.alias_(condition, f"{VAR_PREFIX}{i}"))
    input_query = exp.select(*columns).from_(source.copy())
    input_query = input_query.order_by(*[exp.column(f"{PART_PREFIX}{i}") for i in range(len(partitions))], RN)
    measures = [m.this for m in node.args.get("measures") or []]
    final = [
        str(m.args.get("window_frame") or "").upper() == "FINAL" for m in node.args.get("measures") or []
    ]
    output = (
        _all_rows(measures, final, names, len(partitions))
        if spec.all_rows
        else _one_row(measures, names, partitions)
    )
    return Rewrite(spec, input_query, select, output, node.args.get("alias"))


def _skip(node: exp.MatchRecognize, spec: MatchSpec) -> None:
    after = node.args.get("after")
    if after is None:
        return
    words = after.name.split()
    rest = [w.upper() for w in words[3:]]  # after AFTER MATCH SKIP
    if rest in (["PAST", "LAST", "ROW"], ["TO", "NEXT", "ROW"]):
        spec.skip = " ".join(rest)
        return
    if len(rest) in (2, 3) and rest[0] == "TO":
        which = rest[1] if len(rest) == 3 else "LAST"
        raw = words[-1]
        name = raw[1:-1] if raw.startswith('"') else raw.upper()
        if which in ("FIRST", "LAST") and name in spec.names:
            spec.skip, spec.skip_to = f"TO {which}", spec.names.index(name)
            return
    raise SqlCompilationError(f"Invalid MATCH_RECOGNIZE clause '{after.name}'.")


def _output_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Column):
        return _var(node.name, node.args["this"].quoted)
    return node.sql("snowflake").upper()


# --- DEFINE: conditions over the current row and its neighbours ----------------------------------


def _navigated(
    condition: exp.Expression, names: list[str], partitions: list[exp.Expression], order: exp.Order
) -> exp.Expression:
    """PREV / LAG (and NEXT / LEAD) as window functions over the partition; a column qualified
    by a pattern variable is the current row's."""

    def over(func: exp.Expression) -> exp.Window:
        return exp.Window(this=func, partition_by=[p.copy() for p in partitions], order=order.copy())

    def replace(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and n.table and _var(n.table, n.args["table"].quoted) in names:
            return exp.column(n.args["this"].copy())
        if isinstance(n, (exp.Lag, exp.Lead)) and not isinstance(n.parent, exp.Window):
            return over(n.copy())
        if isinstance(n, exp.Anonymous) and str(n.this).upper() in ("PREV", "NEXT"):
            args = [a.copy() for a in n.expressions]
            func = exp.Lag if str(n.this).upper() == "PREV" else exp.Lead
            return over(func(this=args[0], offset=args[1] if len(args) > 1 else None))
        if isinstance(n, (exp.First, exp.Last, exp.AggFunc)) and not isinstance(n, (exp.Lag, exp.Lead)):
            raise Unsupported("MATCH_RECOGNIZE DEFINE with FIRST, LAST or aggregates is not supported yet.")
        return n

    return condition.transform(replace)


def _var(name: str, quoted: bool) -> str:
    return name if quoted else name.upper()


# --- MEASURES ------------------------------------------------------------------------------------


def _of_var(column: exp.Column, names: list[str]) -> str | None:
    table = column.args.get("table")
    if table is None:
        return None
    name = _var(column.table, table.quoted)
    return name if name in names else None


def _in_var(expression: exp.Expression, names: list[str]) -> tuple[exp.Expression, str | None]:
    """`expression` with its columns unqualified (the output query reads one table), and the
    pattern variable that qualified them (one at most; other qualifiers name the source)."""
    found: set[str] = set()

    def replace(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and n.table:
            var = _of_var(n, names)
            if var is not None:
                found.add(var)
            this = n.args["this"]
            return exp.Star() if isinstance(this, exp.Star) else exp.column(this.copy())
        return n

    out = expression.copy().transform(replace)
    if len(found) > 1:
        raise SqlCompilationError("A MATCH_RECOGNIZE measure may refer to one pattern variable per function.")
    return out, next(iter(found), None)


def _is(var: str) -> exp.Expression:
    return exp.EQ(this=exp.column(CLS), expression=exp.Literal.string(var))


def _only(expression: exp.Expression, var: str | None) -> exp.Expression:
    """The value on rows of `var` (NULL on the others); every row's without a variable."""
    if var is None:
        return expression
    return exp.If(this=_is(var), true=expression, false=exp.null())


def _one_row(
    measures: list[exp.Expression], names: list[str], partitions: list[exp.Expression]
) -> exp.Select:
    """ONE ROW PER MATCH: the partition columns and the measures over the whole match (FINAL),
    taken from the match's first row."""
    count = len(partitions)
    first_row = exp.EQ(this=_over(exp.RowNumber(), count, final=False), expression=exp.Literal.number(1))
    inner = exp.select(
        *[exp.column(f"{PART_PREFIX}{i}") for i in range(count)],
        *_measures(measures, [True] * len(measures), names, count),
    ).from_(MATCHED)
    inner.set("qualify", exp.Qualify(this=first_row))
    columns = [
        exp.alias_(exp.column(f"{PART_PREFIX}{i}"), exp.to_identifier(_output_name(p), quoted=True))
        for i, p in enumerate(partitions)
    ]
    columns += [exp.column(m.args["alias"].copy()) for m in measures]
    return exp.select(*columns).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("M")))
    )


def _all_rows(
    measures: list[exp.Expression], final: list[bool], names: list[str], partitions: int
) -> exp.Select:
    """ALL ROWS PER MATCH: every matched row with the measures over its match so far (RUNNING)
    or over the whole match (FINAL)."""
    star = exp.Star(
        except_=[exp.column(c) for c in (RN, MN, CLS, SEQ)]
        + [exp.column(f"{PART_PREFIX}{i}") for i in range(partitions)]
    )
    columns = _measures(measures, final, names, partitions)
    # Rows of no match (WITH UNMATCHED ROWS) have no match number: no measures either.
    matched = exp.column(MN).is_(exp.null()).not_()
    columns = [
        exp.alias_(exp.If(this=matched, true=c.this, false=exp.null()), c.args["alias"]) for c in columns
    ]
    return exp.select(star, *columns).from_(MATCHED)


def _over(func: exp.Expression, partitions: int, final: bool) -> exp.Window:
    """`func` over the rows of the current match: up to the current row, or all of them."""
    spec = exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW")
    if final:
        spec.set("end", "UNBOUNDED")
        spec.set("end_side", "FOLLOWING")
    return exp.Window(
        this=func,
        partition_by=[exp.column(f"{PART_PREFIX}{i}") for i in range(partitions)] + [exp.column(MN)],
        order=exp.Order(expressions=[exp.Ordered(this=exp.column(RN))]),
        spec=spec if not isinstance(func, exp.RowNumber) else None,
    )


def _measures(
    measures: list[exp.Expression], final: list[bool], names: list[str], partitions: int
) -> list[exp.Expression]:
    """Each measure as window functions over its match (FINAL or RUNNING), under its alias."""
    out: list[exp.Expression] = []
    for m, is_final in zip(measures, final, strict=True):
        if not isinstance(m, exp.Alias):
            raise SqlCompilationError("Each MATCH_RECOGNIZE measure needs an alias (expression AS name).")
        out.append(
            exp.alias_(_Measure(names, partitions, is_final).walk(m.this.copy()), m.args["alias"].copy())
        )
    return out


class _Measure:
    """One measure's rewrite: FIRST / LAST, aggregates, bare columns and MATCH_NUMBER() /
    MATCH_SEQUENCE_NUMBER() / CLASSIFIER() as window functions over the current match."""

    def __init__(self, names: list[str], partitions: int, final: bool) -> None:
        self.names, self.partitions, self.final = names, partitions, final

    def walk(self, n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Anonymous):
            upper = str(n.this).upper()
            if upper in ("MATCH_NUMBER", "CLASSIFIER", "MATCH_SEQUENCE_NUMBER"):
                return self._match_function(upper)
            if upper in ("PREV", "NEXT"):
                raise Unsupported("PREV and NEXT in MATCH_RECOGNIZE measures are not supported yet.")
        if isinstance(n, (exp.First, exp.Last)):
            inner, var = _in_var(n.this, self.names)
            return self._first(inner, var) if isinstance(n, exp.First) else self._last(inner, var)
        if isinstance(n, exp.AggFunc):
            if (
                isinstance(n, exp.Count)
                and isinstance(n.this, exp.Column)
                and isinstance(n.this.this, exp.Star)
            ):
                var = _of_var(n.this, self.names)
                counted = exp.If(this=_is(var), true=exp.Literal.number(1), false=exp.Literal.number(0))
                return self._over(exp.Sum(this=counted) if var else exp.Count(this=exp.Star()))
            inner, var = _in_var(n, self.names)
            if var is not None and isinstance(inner.args.get("this"), exp.Expression):
                inner.set("this", _only(inner.args["this"], var))
            return self._over(inner)
        if isinstance(n, exp.Column):
            return self._last(*_in_var(n, self.names))
        for key, value in list(n.args.items()):
            if isinstance(value, exp.Expression):
                n.set(key, self.walk(value))
            elif isinstance(value, list):
                n.set(key, [self.walk(v) if isinstance(v, exp.Expression) else v for v in value])
        return n

    def _over(self, func: exp.Expression) -> exp.Window:
        return _over(func, self.partitions, self.final)

    def _first(self, inner: exp.Expression, var: str | None) -> exp.Expression:
        return self._over(_nulls_skipped(exp.FirstValue(this=_only(inner, var)), var))

    def _last(self, inner: exp.Expression, var: str | None) -> exp.Expression:
        if var is None and not self.final:
            return inner  # the current row's
        return self._over(_nulls_skipped(exp.LastValue(this=_only(inner, var)), var))

    def _match_function(self, name: str) -> exp.Expression:
        if name == "MATCH_NUMBER":
            return exp.column(MN)
        if name == "MATCH_SEQUENCE_NUMBER":
            return self._over(exp.Max(this=exp.column(SEQ))) if self.final else exp.column(SEQ)
        return self._over(exp.LastValue(this=exp.column(CLS))) if self.final else exp.column(CLS)


def _nulls_skipped(func: exp.Expression, var: str | None) -> exp.Expression:
    """Over one variable's rows only: the others' NULLs are skipped."""
    return exp.IgnoreNulls(this=func) if var is not None else func
