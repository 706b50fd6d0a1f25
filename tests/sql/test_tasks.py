"""Task statements read from their text: options, AFTER, WHEN, the statement after AS (a block's
`;`s included), and the ALTER TASK forms."""

from __future__ import annotations

import pytest

from embucket_py.errors import SyntaxError_
from embucket_py.sql.parse import parse
from embucket_py.sql.tasks import TaskStatement, task_statement
from tests.sql.helpers import CTX


def statement(sql: str) -> TaskStatement:
    (tree,) = parse(sql)
    found = task_statement(tree, CTX)
    assert found is not None
    return found


def test_create_task_clauses() -> None:
    made = statement(
        "CREATE OR REPLACE TASK s.t WAREHOUSE = wh SCHEDULE = '1 MINUTE' COMMENT = 'it''s' "
        "SUSPEND_TASK_AFTER_NUM_FAILURES = 3 AFTER a, \"Other\".b WHEN SYSTEM$STREAM_HAS_DATA('x') "
        "AND CAST(1 AS BOOLEAN) AS INSERT INTO log SELECT * FROM x"
    )
    assert (made.action, made.parts, made.replace) == ("CREATE", ["DB", "S", "T"], True)
    assert made.options == {
        "WAREHOUSE": "WH",
        "SCHEDULE": "1 MINUTE",
        "COMMENT": "it's",
        "SUSPEND_TASK_AFTER_NUM_FAILURES": "3",
    }
    assert made.after == [["DB", "PUBLIC", "A"], ["DB", "Other", "B"]]
    assert made.condition == "SYSTEM$STREAM_HAS_DATA('x') AND CAST(1 AS BOOLEAN)"
    assert made.definition == "INSERT INTO log SELECT * FROM x"


def test_a_block_after_as_is_one_statement() -> None:
    trees = parse("CREATE TASK t AS BEGIN INSERT INTO a VALUES (1); DELETE FROM b; END; SELECT 1")
    assert len(trees) == 2
    made = task_statement(trees[0], CTX)
    assert made is not None and made.definition == "BEGIN INSERT INTO a VALUES (1); DELETE FROM b; END"
    altered = statement("ALTER TASK t MODIFY AS BEGIN SELECT 1; END")
    assert (altered.change, altered.definition) == ("MODIFY_AS", "BEGIN SELECT 1; END")


def test_alter_task_forms() -> None:
    assert statement("ALTER TASK IF EXISTS t RESUME").change == "RESUME"
    changed = statement("ALTER TASK t SET SCHEDULE = '2 MINUTES', ALLOW_OVERLAPPING_EXECUTION = TRUE")
    assert changed.options == {"SCHEDULE": "2 MINUTES", "ALLOW_OVERLAPPING_EXECUTION": "TRUE"}
    assert statement("ALTER TASK t UNSET COMMENT, SCHEDULE").options == {"COMMENT": None, "SCHEDULE": None}
    removed = statement("ALTER TASK t REMOVE AFTER a, b")
    assert (removed.change, removed.after) == ("REMOVE_AFTER", [["DB", "PUBLIC", "A"], ["DB", "PUBLIC", "B"]])
    assert statement("ALTER TASK t MODIFY WHEN 1 = 1").condition == "1 = 1"
    assert statement("EXECUTE TASK t AWAIT").wait
    assert statement("SHOW TASKS LIKE 'x%' IN DATABASE d").parts == ["D"]


def test_create_task_needs_a_statement() -> None:
    with pytest.raises(SyntaxError_):
        statement("CREATE TASK t SCHEDULE = '1 MINUTE'")
