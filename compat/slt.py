"""SQL logic test files: records, value rendering and result comparison (pure: no connection).

The format and the rendering rules are those of ../shared/compat/README.md, which describes how
the expected results were recorded on Snowflake (values fetched with the Python connector, then
turned into text).
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import re
from dataclasses import dataclass
from typing import Any

NULL = "NULL"
EMPTY = "''"
# Some files write an empty string as `(empty)` (the sqllogictest convention).
EMPTY_ALIASES = frozenset({EMPTY, "(empty)"})

# Patterns some files use for values that differ on every run.
REGEX = "<REGEX>:"
NOT_REGEX = "<!REGEX>:"

# The loose rule the recorded suite was scored with.
REL_TOLERANCE = 0.05
ABS_TOLERANCE = 0.1

_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
# `002035 (42601): SQL compilation error: ...`: Snowflake's error code and SQLSTATE.
_ERROR_CODE = re.compile(r"^\s*(\d{6})\s*\((\w{5})\)")
_SORT_MODES = ("nosort", "rowsort", "valuesort")


@dataclass
class Record:
    """One `statement` or `query` record of an .slt file."""

    kind: str  # "statement" or "query"
    sql: str
    line: int  # 1-based line of the record's header
    expect_error: bool = False
    error_text: str | None = None  # expected error text after `----` (statement error)
    types: str = ""  # the type letters of a query (not reliable: values decide)
    sort: str = "nosort"
    expected: list[str] | None = None  # expected rows, one tab-separated line each
    counted: bool = True  # False for `exclude-from-coverage` setup records


class SltSyntaxError(ValueError):
    pass


def _is_blank(line: str) -> bool:
    return not line.strip()


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def parse(text: str) -> list[Record]:
    """Parses the records of one .slt file.

    Raises:
        SltSyntaxError: a record header is not one this format knows.
    """
    lines = text.split("\n")
    lines = [line.removesuffix("\r") for line in lines]
    records: list[Record] = []
    counted = True
    i = 0
    while i < len(lines):
        line = lines[i]
        if _is_blank(line) or _is_comment(line):
            i += 1
            continue
        words = line.split()
        if words == ["exclude-from-coverage"]:
            counted = False
            i += 1
            continue
        header_line = i + 1
        if words[0] not in ("statement", "query"):
            raise SltSyntaxError(f"line {header_line}: unknown record {line.strip()!r}")
        i += 1
        body: list[str] = []
        while i < len(lines) and not _is_blank(lines[i]) and lines[i].strip() != "----":
            if not _is_comment(lines[i]):
                body.append(lines[i])
            i += 1
        after: list[str] | None = None
        if i < len(lines) and lines[i].strip() == "----":
            i += 1
            after = []
            # Results end at an empty line; a result line is kept as is (leading spaces matter, and
            # a line of spaces is a value: SPACE(3)).
            while i < len(lines) and lines[i] != "":
                after.append(lines[i])
                i += 1
        sql = "\n".join(body).strip()
        if not sql:
            raise SltSyntaxError(f"line {header_line}: record without SQL")
        records.append(_record(words, sql, header_line, after, counted))
        counted = True
    return records


def _record(words: list[str], sql: str, line: int, after: list[str] | None, counted: bool) -> Record:
    if words[0] == "statement":
        mode = words[1] if len(words) > 1 else ""
        if mode not in ("ok", "error"):
            raise SltSyntaxError(f"line {line}: expected 'statement ok' or 'statement error'")
        error_text = "\n".join(after).strip() if after else None
        return Record(
            "statement", sql, line, expect_error=mode == "error", error_text=error_text, counted=counted
        )
    types = words[1] if len(words) > 1 else ""
    sort = next((w for w in words[2:] if w in _SORT_MODES), "nosort")
    return Record("query", sql, line, types=types, sort=sort, expected=after, counted=counted)


# --- rendering ----------------------------------------------------------------------------------


def _compact_json(value: Any) -> str:
    return "'" + json.dumps(value, separators=(",", ":")) + "'"


def render(value: Any) -> str:
    """A fetched value as the expected results write it."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, bytes | bytearray | memoryview):
        return f"x'{bytes(value).hex()}'"
    if isinstance(value, datetime.date | datetime.time):
        return f"'{value.isoformat()}'"
    if isinstance(value, list | dict):
        return _compact_json(value)
    if isinstance(value, str):
        if value == "":
            return EMPTY
        if value in ("true", "false", "null"):
            return value
        parsed = _json_container(value)
        if parsed is not None:
            return _compact_json(parsed)
        return value.replace("\n", "\\n")
    return str(value)


def _json_container(text: str) -> list[Any] | dict[str, Any] | None:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        parsed = json.loads(stripped)
    except ValueError:
        return None
    return parsed if isinstance(parsed, list | dict) else None


# --- comparison ---------------------------------------------------------------------------------


def _number(text: str) -> float | None:
    if not _NUMBER.fullmatch(text.strip()):
        return None
    return float(text)


def numbers_close(actual: float, expected: float) -> bool:
    if math.isnan(actual) or math.isnan(expected):
        return math.isnan(actual) and math.isnan(expected)
    if actual == expected:
        return True
    if math.isinf(actual) or math.isinf(expected):
        return False
    diff = abs(actual - expected)
    return diff <= ABS_TOLERANCE or diff <= REL_TOLERANCE * max(abs(actual), abs(expected))


def _truth(text: str) -> bool | None:
    low = text.strip().lower()
    return True if low in _TRUE else False if low in _FALSE else None


def _moment(text: str) -> datetime.datetime | datetime.date | datetime.time | None:
    """A quoted ISO date, time or timestamp as a value (timestamps with an offset by instant)."""
    if len(text) < 4 or text[0] != "'" or text[-1] != "'":
        return None
    body = text[1:-1]
    for parse_iso in (datetime.datetime.fromisoformat, datetime.time.fromisoformat):
        try:
            value = parse_iso(body)
        except ValueError:
            continue
        if isinstance(value, datetime.datetime) and len(body) == 10:
            return value.date()
        return value
    return None


def cell_matches(value: Any, expected: str) -> bool:
    """Whether one fetched value matches its expected text."""
    actual = render(value)
    if actual == expected:
        return True
    for prefix, wanted in ((REGEX, True), (NOT_REGEX, False)):
        if expected.startswith(prefix):
            # For values that differ on every run (RANDOM, UUID_STRING): a pattern for the whole value.
            return bool(re.fullmatch(expected.removeprefix(prefix), actual, re.DOTALL)) == wanted
    if actual == EMPTY and expected in EMPTY_ALIASES:
        return True
    if value is None or expected == NULL:
        return False
    truth = _truth(expected)
    if isinstance(value, bool) or (truth is not None and _truth(actual) is not None):
        return truth is not None and truth == _truth(actual)
    expected_number = _number(expected)
    if expected_number is not None:
        if isinstance(value, int | float | decimal.Decimal):
            return numbers_close(float(value), expected_number)
        actual_number = _number(actual)
        # Numbers that arrive as text (a VARIANT, a different result type) must match exactly.
        return actual_number is not None and actual_number == expected_number
    expected_moment, actual_moment = _moment(expected), _moment(actual)
    if expected_moment is not None and actual_moment is not None:
        try:
            return expected_moment == actual_moment
        except TypeError:  # naive vs aware: not the same kind of value
            return False
    expected_json, actual_json = _json_container(expected.strip("'")), _json_container(actual.strip("'"))
    return expected_json is not None and expected_json == actual_json


def _split(line: str, width: int) -> list[str]:
    # A one-column result keeps its whole line: the value itself may hold a tab.
    return [line] if width == 1 else line.split("\t")


def compare(rows: list[tuple[Any, ...]], width: int, expected: list[str], sort: str = "nosort") -> str | None:
    """Compares fetched rows to the expected lines. Returns None when they match, else why not."""
    wanted = [_split(line, width) for line in expected]
    got = [list(row) for row in rows]
    if sort == "rowsort":
        got.sort(key=lambda r: [render(v) for v in r])
        wanted.sort()
    elif sort == "valuesort":
        flat = sorted((v for r in got for v in r), key=render)
        got = [flat[i : i + width] for i in range(0, len(flat), width)]
        values = sorted(v for r in wanted for v in r)
        wanted = [values[i : i + width] for i in range(0, len(values), width)]
    if len(got) != len(wanted):
        return f"expected {len(wanted)} rows, got {len(got)}: {_preview(got)}"
    mismatch = _first_mismatch(got, wanted, width)
    if mismatch is not None and sort == "nosort" and _matches_unordered(got, wanted, width):
        # Still a failure (rows compare in order), but worth knowing when reading a report.
        mismatch += " (the rows match in another order)"
    return mismatch


def _first_mismatch(got: list[list[Any]], wanted: list[list[str]], width: int) -> str | None:
    for n, (row, cells) in enumerate(zip(got, wanted, strict=True), start=1):
        if len(cells) != width:
            return f"row {n}: expected {len(cells)} columns, got {width}: {_preview([row])}"
        for c, (value, cell) in enumerate(zip(row, cells, strict=True), start=1):
            if not cell_matches(value, cell):
                return f"row {n}, column {c}: expected {cell!r}, got {render(value)!r}"
    return None


def _matches_unordered(got: list[list[Any]], wanted: list[list[str]], width: int) -> bool:
    """Whether every fetched row matches a distinct expected row (greedy, small results only)."""
    if len(got) > 1000:
        return False
    left = list(wanted)
    for row in got:
        hits = (i for i, cells in enumerate(left) if _first_mismatch([row], [cells], width) is None)
        hit = next(hits, None)
        if hit is None:
            return False
        left.pop(hit)
    return True


def _preview(rows: list[list[Any]], limit: int = 5) -> str:
    shown = ["\t".join(render(v) for v in row) for row in rows[:limit]]
    more = f" ... (+{len(rows) - limit})" if len(rows) > limit else ""
    return repr(shown) + more


def error_matches(errno: int | None, sqlstate: str | None, expected_text: str | None) -> bool:
    """An expected error with a Snowflake code and SQLSTATE must fail with exactly those; any other
    expected text (or none) only asks for a failure, since messages differ in wording."""
    if not expected_text:
        return True
    match = _ERROR_CODE.match(expected_text)
    if match is None:
        return True
    return errno == int(match.group(1)) and (sqlstate or "") == match.group(2)
