"""The SLT runner: record parsing, value rendering and comparison, and one run against a server."""

from __future__ import annotations

import datetime
import io
import json
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

from compat.slt import SltSyntaxError, cell_matches, compare, error_matches, parse, render
from compat.slt_runner import folder_totals, run_paths, summary
from compat.slt_worker import ServerConfig, StatementTimeout, watch
from tests.e2e.conftest import Server

SAMPLE = """\
# a comment before the first record
exclude-from-coverage
statement ok
CREATE TABLE t (a INT, b VARCHAR)

 statement ok
INSERT INTO t VALUES (1, 'x'),
  -- a SQL comment stays in the SQL
  (2, 'y')

query IT rowsort
SELECT a, b
FROM t
----
1	x
2	y

statement error
SELECT * FROM missing
----
002003 (42S02): SQL compilation error:
Object 'MISSING' does not exist or not authorized.

statement error
SELECT 1 +

query T
SELECT ' leading'
----
 leading
"""


def test_parse_reads_every_record_kind() -> None:
    records = parse(SAMPLE)
    assert [(r.kind, r.expect_error, r.counted, r.line) for r in records] == [
        ("statement", False, False, 3),
        ("statement", False, True, 6),
        ("query", False, True, 11),
        ("statement", True, True, 18),
        ("statement", True, True, 24),
        ("query", False, True, 27),
    ]
    create, insert, query, missing, syntax, leading = records
    assert create.sql == "CREATE TABLE t (a INT, b VARCHAR)"
    assert "-- a SQL comment" in insert.sql
    assert (query.types, query.sort, query.expected) == ("IT", "rowsort", ["1\tx", "2\ty"])
    assert query.sql == "SELECT a, b\nFROM t"
    assert missing.error_text is not None and missing.error_text.startswith("002003 (42S02)")
    assert syntax.error_text is None
    # Leading spaces of a result line are part of the value.
    assert leading.expected == [" leading"]


def test_parse_skips_comment_lines_inside_sql() -> None:
    (record,) = parse("query I\nSELECT 1\n# not SQL\n----\n1\n")
    assert record.sql == "SELECT 1"


def test_a_result_line_of_spaces_is_a_value() -> None:
    (record,) = parse("query T\nSELECT SPACE(3)\n----\n   \n\nquery I\nSELECT 1\n----\n1\n")[:1]
    assert record.expected == ["   "]
    assert compare([("   ",)], 1, record.expected) is None


def test_parse_rejects_unknown_records() -> None:
    with pytest.raises(SltSyntaxError, match="line 1"):
        parse("halt\n")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "NULL"),
        ("", "''"),
        ("plain", "plain"),
        ("two\nlines", "two\\nlines"),
        ("true", "true"),
        ('{ "b": [1, 2], "a": null }', '\'{"b":[1,2],"a":null}\''),
        ("[1, 2]", "'[1,2]'"),
        ("42", "42"),
        ([1, "x"], "'[1,\"x\"]'"),
        ({"k": 1}, "'{\"k\":1}'"),
        (True, "TRUE"),
        (False, "FALSE"),
        (7, "7"),
        (Decimal("2.50"), "2.50"),
        (14.0, "14.0"),
        (b"Hello", "x'48656c6c6f'"),
        (b"", "x''"),
        (datetime.date(2024, 1, 31), "'2024-01-31'"),
        (datetime.time(12, 34, 56, 789000), "'12:34:56.789000'"),
        (datetime.datetime(2024, 1, 31, 10, 0), "'2024-01-31T10:00:00'"),
        (
            datetime.datetime(2023, 1, 1, 12, 34, 56, tzinfo=datetime.timezone(datetime.timedelta(hours=-8))),
            "'2023-01-01T12:34:56-08:00'",
        ),
    ],
)
def test_render_writes_values_as_recorded(value: object, text: str) -> None:
    assert render(value) == text


@pytest.mark.parametrize(
    ("value", "expected", "matches"),
    [
        (1, "1", True),
        (Decimal("8.00"), "8", True),
        (1.04, "1", True),  # within 0.1
        (104.0, "100", True),  # within 5 %
        (110.0, "100", False),
        (2, "1", False),
        (float("nan"), "NaN", True),
        ("1.50", "1.5", True),  # numbers as text compare exactly, by value
        ("1.55", "1.5", False),
        (True, "TRUE", True),
        (True, "true", True),
        (True, "1", True),
        (False, "0", True),
        (False, "TRUE", False),
        ("true", "TRUE", True),
        (None, "NULL", True),
        (None, "0", False),
        (0, "NULL", False),
        ("", "(empty)", True),
        ("abc", "ABC", False),
        # TIMESTAMP_TZ values compare by instant.
        (
            datetime.datetime(2023, 1, 1, 20, 34, 56, tzinfo=datetime.UTC),
            "'2023-01-01T12:34:56-08:00'",
            True,
        ),
        (datetime.datetime(2023, 1, 1, 12, 34, 56), "'2023-01-01T12:34:56-08:00'", False),
        (datetime.time(12, 0), "'12:00:00.000000'", True),
        ('{"a":1,"b":2}', '\'{"b":2,"a":1}\'', True),
        ("7d8f6c2e-1b2a-4c3d-9e8f-0a1b2c3d4e5f", "<REGEX>:[0-9a-f-]{36}", True),
        ("short", "<REGEX>:[0-9a-f-]{36}", False),
        ("short", "<!REGEX>:[0-9a-f-]{36}", True),
    ],
)
def test_cell_matches_applies_the_loose_rules(value: object, expected: str, matches: bool) -> None:
    assert cell_matches(value, expected) is matches


def test_compare_keeps_row_order_but_says_when_only_order_differs() -> None:
    assert compare([(1, "x"), (2, "y")], 2, ["1\tx", "2\ty"]) is None
    message = compare([(2, "y"), (1, "x")], 2, ["1\tx", "2\ty"])
    assert message is not None and "another order" in message
    assert compare([(2, "y"), (1, "x")], 2, ["1\tx", "2\ty"], sort="rowsort") is None


def test_compare_reports_row_and_column_count_mismatches() -> None:
    assert "expected 2 rows, got 1" in (compare([(1,)], 1, ["1", "2"]) or "")
    assert "expected 1 columns, got 2" in (compare([(1, 2)], 2, ["1"]) or "")


def test_compare_keeps_a_single_column_line_whole() -> None:
    # A one-column value may itself contain a tab.
    assert compare([("a\tb",)], 1, ["a\tb"]) is None


def test_error_matches_code_and_sqlstate_only_when_given() -> None:
    text = "002003 (42S02): SQL compilation error:\nObject 'X' does not exist"
    assert error_matches(2003, "42S02", text)
    assert not error_matches(2003, "42000", text)
    assert not error_matches(1003, "42S02", text)
    assert error_matches(1234, "XX000", None)
    assert error_matches(1234, "XX000", "000200: Error during planning: anything")


def test_watch_gives_up_on_work_that_hangs() -> None:
    started = time.monotonic()
    with pytest.raises(StatementTimeout):
        watch(lambda: time.sleep(5), 0.2)
    assert time.monotonic() - started < 2
    assert watch(lambda: 42, 1) == 42


def test_folder_totals_add_up_every_ancestor_folder() -> None:
    from compat.slt_runner import FileResult
    from compat.slt_worker import RecordResult

    def file(path: str, passed: int, failed: int) -> FileResult:
        records = [RecordResult(1, "query", True, True, "") for _ in range(passed)]
        records += [RecordResult(1, "query", True, False, "") for _ in range(failed)]
        records.append(RecordResult(1, "statement", False, False, ""))  # setup: never counted
        return FileResult(path, records)

    results = [file("a/b/x.slt", 2, 1), file("a/y.slt", 1, 0), file("top.slt", 0, 1)]
    assert folder_totals(results) == {"a": (3, 4), "a/b": (2, 3)}
    assert summary(results)["overall"] == {"passed": 3, "counted": 5, "files": 3}


# --- against a running server -------------------------------------------------------------------

SERVER_FILE = """\
exclude-from-coverage
statement ok
CREATE TABLE items (id INT, name VARCHAR, price NUMBER(10, 2), added DATE, ok BOOLEAN)

statement ok
INSERT INTO items VALUES
  (1, 'apple', 1.50, '2024-01-31', TRUE),
  (2, '', 0.25, NULL, FALSE),
  (3, NULL, NULL, '2023-12-01', NULL)

query ITTTT
SELECT id, name, price, added, ok FROM items ORDER BY id
----
1	apple	1.50	'2024-01-31'	TRUE
2	''	0.25	NULL	FALSE
3	NULL	NULL	'2023-12-01'	NULL

query IT
SELECT COUNT(*), MAX(name) FROM items
----
3	apple

statement error
SELECT * FROM no_such_table
----
002003 (42S02): SQL compilation error:
Object 'NO_SUCH_TABLE' does not exist or not authorized.

# deliberately wrong: proves failures are counted
query I
SELECT 1
----
2
"""


def test_runner_counts_passes_against_a_server(server: Server, tmp_path: Path) -> None:
    suite = tmp_path / "suite" / "folder"
    suite.mkdir(parents=True)
    (suite / "sample.slt").write_text(SERVER_FILE)
    out = io.StringIO()
    config = ServerConfig(host="127.0.0.1", port=server.port, timeout=30)
    (result,) = run_paths([tmp_path / "suite"], config, verbose=True, out=out)
    failures = [(r.line, r.message) for r in result.records if not r.passed]
    assert result.error is None, result.error
    assert (result.passed, result.counted) == (4, 5), failures
    assert [line for line, _ in failures] == [parse(SERVER_FILE)[-1].line]
    assert result.path == "folder/sample.slt"
    assert "folder/sample.slt" in out.getvalue()
    json.dumps(summary([result]))  # the --json report is plain JSON


# A stand-in worker that answers the first record, then dies the way the connector can (SIGSEGV).
CRASHING_WORKER = """
import json, os, signal, sys
for line in sys.stdin:
    request = json.loads(line)
    if "drop" in request:
        print(json.dumps({"done": {}}), flush=True)
        continue
    record = {"line": 1, "kind": "statement", "counted": True, "passed": True, "sql": "SELECT 1"}
    print(json.dumps({"record": record}), flush=True)
    os.kill(os.getpid(), signal.SIGSEGV)
"""


def test_a_crashing_worker_fails_the_rest_of_its_file_only(tmp_path: Path) -> None:
    from compat.slt_runner import Runner

    path = tmp_path / "three.slt"
    path.write_text("statement ok\nSELECT 1\n\nstatement ok\nSELECT 2\n\nquery I\nSELECT 3\n----\n3\n")
    runner = Runner(ServerConfig(timeout=5), worker_command=[sys.executable, "-c", CRASHING_WORKER])
    try:
        first = runner.run_file(path, "three.slt")
        second = runner.run_file(path, "three.slt")  # on a new worker
    finally:
        runner.close()
    for result in (first, second):
        assert [r.passed for r in result.records] == [True, False, False]
        assert "crashed" in result.records[1].message
        assert result.records[2].message.startswith("not run")


def test_floors_fail_only_the_suite_below_its_floor(server: Server, tmp_path: Path) -> None:
    from compat.slt_runner import check_floors

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "sample.slt").write_text(SERVER_FILE)  # 4 of 5 counted records pass: 80%
    config = ServerConfig(host="127.0.0.1", port=server.port, timeout=30)
    floors = tmp_path / "floors.json"
    floors.write_text(json.dumps({str(suite): 75.0}))
    assert check_floors(floors, config) == 0
    floors.write_text(json.dumps({str(suite): 85.0}))
    assert check_floors(floors, config) == 1
