"""How Snowflake names are stored in Iceberg (embucket_py/naming.py) and normalized (sql/names.py)."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from embucket_py import naming
from embucket_py.sql.names import normalize, upper_outside_quotes


@pytest.mark.parametrize(
    ("snowflake", "stored"),
    [
        ("ORDERS", "orders"),  # every unquoted name: upper case in Snowflake
        ("ORDER_ITEMS_2", "order_items_2"),
        ("MyCol", "MyCol"),  # quoted mixed case stays exact
        ("My Col", "My Col"),
        ("123", "123"),  # no letters: nothing to fold
        ("ÄPFEL", "äpfel"),
    ],
)
def test_stored_names_are_lower_case_unless_mixed(snowflake: str, stored: str) -> None:
    assert naming.stored(snowflake) == stored
    assert naming.display(stored) == snowflake


@pytest.mark.parametrize("name", ["ORDERS", "A_1", "MyCol", "My Col", "mIxEd", "$X", "123"])
def test_snowflake_names_round_trip(name: str) -> None:
    assert naming.display(naming.stored(name)) == name


@pytest.mark.parametrize("stored", ["orders", "MyCol", "a b", "x1"])
def test_stored_names_round_trip(stored: str) -> None:
    # Names Spark or pyiceberg write without quotes are lower case and come back unchanged.
    assert naming.stored(naming.display(stored)) == stored


def test_quoted_lower_case_name_collides_with_its_unquoted_twin() -> None:
    # The documented collision: "orders" and ORDERS are one stored name, shown as ORDERS.
    assert naming.stored("orders") == naming.stored("ORDERS") == "orders"
    assert naming.display(naming.stored("orders")) == "ORDERS"


@pytest.mark.xfail(
    strict=True,
    reason="an all-upper-case Iceberg name written by another engine (pyiceberg's 'ORDERS') shows as "
    "ORDERS, but ORDERS is looked up as 'orders': no Snowflake spelling reaches it",
)
def test_upper_case_names_written_by_other_engines_are_reachable() -> None:
    assert naming.stored(naming.display("ORDERS")) == "ORDERS"


@pytest.mark.parametrize(
    ("name", "quoted"),
    [
        ("ORDERS", "ORDERS"),
        ("A_1", "A_1"),
        ("A$B", "A$B"),
        ("MyCol", '"MyCol"'),
        ("orders", '"orders"'),
        ("1A", '"1A"'),
        ("MY COL", '"MY COL"'),
        ('A"B', '"A""B"'),
        ("", '""'),
    ],
)
def test_quote_writes_a_name_that_parses_back_to_itself(name: str, quoted: str) -> None:
    assert naming.quote(name) == quoted
    if name:
        alias = sqlglot.parse_one(f"SELECT 1 AS {quoted}", read="snowflake").expressions[0].args["alias"]
        assert normalize(alias) == name


def test_normalize_folds_unquoted_names_only() -> None:
    assert normalize(exp.to_identifier("orders")) == "ORDERS"
    assert normalize(exp.to_identifier("orders", quoted=True)) == "orders"
    assert normalize("MyCol") == "MYCOL"  # a plain string is an unquoted name


def test_upper_outside_quotes() -> None:
    assert upper_outside_quotes('sum(a) + "b"') == 'SUM(A) + "b"'
