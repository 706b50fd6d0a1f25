"""MATCH_RECOGNIZE: the row-pattern matcher between the input and output queries that
sql/match_recognize.py makes of the clause.

The input query gives each partition's rows in order with one boolean per pattern variable; the
pattern runs over them as a Pike VM (threads in priority order, so the preferred match wins as
with a backtracking regular expression: greedy and reluctant quantifiers, alternatives in
order), which keeps each thread's row-by-row variables, needs no recursion and takes time linear
in the rows it tries. The matched rows (with match number, variable and place in the match) are
an Arrow table the statement's context registers under a one-off name.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from embucket_py import naming
from embucket_py.engine.history import SEP, SOURCE_SCHEMA
from embucket_py.errors import SqlCompilationError
from embucket_py.sql import match_recognize as mr

SOURCE = "MATCH_RECOGNIZE"
MAX_KEPT = 32  # matched tables waiting for their statement to register them

_matched: OrderedDict[str, pa.Table] = OrderedDict()
_lock = threading.Lock()

RunQuery = Callable[[exp.Expression], tuple[pa.Table, list[str]]]


def resolve(tree: exp.Expression, run: RunQuery) -> exp.Expression:
    """Replaces every MATCH_RECOGNIZE clause (innermost first) by its output query over the
    rows it matched."""
    while nodes := list(tree.find_all(exp.MatchRecognize)):
        rewrite = mr.rewrite(nodes[-1])  # the last found has no clause inside its source
        table, names = run(rewrite.input)
        key = uuid.uuid4().hex
        with _lock:
            _matched[key] = matched_rows(table, names, rewrite.spec)
            while len(_matched) > MAX_KEPT:
                _matched.popitem(last=False)
        source = exp.Table(
            this=exp.to_identifier(SEP.join((SOURCE, key)), quoted=True),
            db=exp.to_identifier(SOURCE_SCHEMA, quoted=True),
        )
        mr.place(rewrite, source)
    return tree


def take(encoded: str) -> pa.Table:
    """The matched rows of one clause, for its statement's context (once)."""
    with _lock:
        table = _matched.pop(encoded.split(SEP)[1], None)
    if table is None:
        raise SqlCompilationError(
            "The rows of a MATCH_RECOGNIZE clause are no longer available; run it again."
        )
    return table


def matched_rows(table: pa.Table, names: list[str], spec: mr.MatchSpec) -> pa.Table:
    """The input's rows of every match (a row in two overlapping matches twice), with columns
    `__MR_MN`, `__MR_CLS` and `__MR_SEQ`; the variables' booleans dropped."""
    table = table.rename_columns([naming.stored(n) for n in names])
    program = compile_pattern(spec.pattern)
    row_numbers = table.column(naming.stored(mr.RN)).to_numpy(zero_copy_only=False)
    conditions = [
        pc.fill_null(table.column(naming.stored(f"{mr.VAR_PREFIX}{i}")), False).to_numpy(zero_copy_only=False)
        for i in range(len(spec.names))
    ]
    starts = [*np.flatnonzero(row_numbers == 1).tolist(), len(row_numbers)]
    rows: list[int] = []
    numbers: list[int | None] = []
    variables: list[int | None] = []
    places: list[int | None] = []
    for begin, end in itertools.pairwise(starts):
        part = [c[begin:end].tolist() for c in conditions]
        done = begin  # WITH UNMATCHED ROWS: the rows before each match that no match took
        for number, first, classes in _matches(program, part, end - begin, spec):
            if spec.unmatched and done < begin + first:
                _add_unmatched(rows, numbers, variables, places, done, begin + first)
            rows.extend(range(begin + first, begin + first + len(classes)))
            numbers.extend([number] * len(classes))
            variables.extend(classes)
            places.extend(range(1, len(classes) + 1))
            done = max(done, begin + first + len(classes))
        if spec.unmatched and done < end:
            _add_unmatched(rows, numbers, variables, places, done, end)
    keep = [c for c in table.column_names if not c.startswith(naming.stored(mr.VAR_PREFIX))]
    out = table.select(keep).take(pa.array(rows, pa.int64()))
    labels = pa.array(spec.names, pa.string()).take(pa.array(variables, pa.int64()))
    out = out.append_column(naming.stored(mr.MN), pa.array(numbers, pa.int64()))
    out = out.append_column(naming.stored(mr.CLS), labels)
    return out.append_column(naming.stored(mr.SEQ), pa.array(places, pa.int64()))


def _add_unmatched(
    rows: list[int],
    numbers: list[int | None],
    variables: list[int | None],
    places: list[int | None],
    start: int,
    end: int,
) -> None:
    count = end - start
    rows.extend(range(start, end))
    numbers.extend([None] * count)
    variables.extend([None] * count)
    places.extend([None] * count)


# --- the matcher ---------------------------------------------------------------------------------

Program = list[tuple]


def compile_pattern(pattern: mr.Node) -> Program:
    """The pattern as VM instructions: ("var", i) takes a row of variable i; ("split", a, b)
    tries a, then b; ("jmp", a); ("start",) / ("end",) assert the partition's edges; ("match",)."""
    program: Program = []
    _emit(pattern, program)
    program.append(("match",))
    return program


def _emit(node: mr.Node, program: Program) -> None:
    if isinstance(node, mr.Var):
        program.append(("var", node.index))
    elif isinstance(node, mr.Anchor):
        program.append(("start",) if node.start else ("end",))
    elif isinstance(node, mr.Seq):
        for item in node.items:
            _emit(item, program)
    elif isinstance(node, mr.Alt):
        jumps = []
        for option in node.options[:-1]:
            split = len(program)
            program.append(("split", split + 1, -1))
            _emit(option, program)
            jumps.append(len(program))
            program.append(("jmp", -1))
            program[split] = ("split", split + 1, len(program))
        _emit(node.options[-1], program)
        for at in jumps:
            program[at] = ("jmp", len(program))
    else:
        for _ in range(node.low):
            _emit(node.item, program)
        if node.high is None:
            loop = len(program)
            program.append(("split", -1, -1))
            _emit(node.item, program)
            program.append(("jmp", loop))
            program[loop] = _choice(loop + 1, len(program), node.greedy)
        else:
            for _ in range(node.high - node.low):
                split = len(program)
                program.append(("split", -1, -1))
                _emit(node.item, program)
                program[split] = _choice(split + 1, len(program), node.greedy)


def _choice(body: int, skip: int, greedy: bool) -> tuple:
    return ("split", body, skip) if greedy else ("split", skip, body)


def _matches(
    program: Program, conditions: list[list[bool]], rows: int, spec: mr.MatchSpec
) -> list[tuple[int, int, list[int]]]:
    """(match number, first row, variable of each row) of one partition's matches, in order.
    Empty matches are left out."""
    found = []
    start = 0
    while start < rows:
        classes = _match_at(program, conditions, rows, start)
        if not classes:
            start += 1
            continue
        found.append((len(found) + 1, start, classes))
        after = start + len(classes)
        if spec.skip == "TO NEXT ROW":
            after = start + 1
        elif spec.skip_to is not None and spec.skip_to in classes:
            at = (
                classes.index(spec.skip_to)
                if spec.skip == "TO FIRST"
                else len(classes) - 1 - classes[::-1].index(spec.skip_to)
            )
            after = start + at
        start = max(after, start + 1)  # a skip back to the match's first row would loop
    return found


def _match_at(program: Program, conditions: list[list[bool]], rows: int, start: int) -> list[int] | None:
    """The preferred match starting at row `start`: each row's variable, or None."""
    best: tuple | None = None
    current: list[tuple[int, tuple | None]] = []
    _add(program, current, set(), 0, start, rows, None)
    position = start
    while current:
        following: list[tuple[int, tuple | None]] = []
        seen: set[int] = set()
        for pc_, path in current:
            op = program[pc_]
            if op[0] == "match":
                best = path if path is not None else ()
                break  # the threads after this one have lower priority
            if position < rows and conditions[op[1]][position]:
                _add(program, following, seen, pc_ + 1, position + 1, rows, (op[1], path))
        current = following
        position += 1
    if best is None:
        return None
    classes: list[int] = []
    node = best
    while node:
        classes.append(node[0])
        node = node[1]
    return classes[::-1]


def _add(
    program: Program,
    threads: list[tuple[int, tuple | None]],
    seen: set[int],
    pc_: int,
    position: int,
    rows: int,
    path: tuple | None,
) -> None:
    """Adds a thread at `pc_`, following jumps, splits (in priority order) and anchors."""
    if pc_ in seen:
        return
    seen.add(pc_)
    op = program[pc_]
    kind = op[0]
    if kind == "jmp":
        _add(program, threads, seen, op[1], position, rows, path)
    elif kind == "split":
        _add(program, threads, seen, op[1], position, rows, path)
        _add(program, threads, seen, op[2], position, rows, path)
    elif kind == "start":
        if position == 0:
            _add(program, threads, seen, pc_ + 1, position, rows, path)
    elif kind == "end":
        if position == rows:
            _add(program, threads, seen, pc_ + 1, position, rows, path)
    else:
        threads.append((pc_, path))
