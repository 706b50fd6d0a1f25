"""The VARIANT fast paths give what the general path gives: text of a JSON value, JSON of a
Python value, TO_VARIANT of whole numbers."""

from __future__ import annotations

import datetime as dt
import json
import random
from decimal import Decimal

import pyarrow as pa
import pytest

from embucket_py.engine.functions.variant import (
    MISSING,
    UTF8,
    _object_of_columns,
    _scalar_text,
    _to_variant,
    parsed,
    text_of,
)
from embucket_py.engine.functions.variant_values import _plain, _unmarked, dumps, loads, number

TEXTS = ["1", "-12", "0", "-0", "007", "12345678901234567890123", '"abc"', '""', '"a\\"b"', '"a"b"', '"é ü"']
TEXTS += [
    '"line\\nbreak"',
    '"tab\there"',
    "true",
    "false",
    "null",
    "1.5e+00",
    "1.50",
    "[1,2]",
    '{"a":1}',
    "plain",
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_variants_text_is_the_parsed_values_text(text: str) -> None:
    assert _scalar_text(text) == text_of(parsed(pa.array([text], UTF8))[0])


@pytest.mark.parametrize(
    "value", [0, -5, 10**30, "abc", "", 'q"uote', "\x00x", "\ud800", "é", True, None, 1.5, Decimal("2.50")]
)
def test_dumps_fast_paths_match_the_general_one(value: object) -> None:
    general = _unmarked(json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    assert dumps(value) == general


def test_a_string_like_a_marked_number_stays_a_string() -> None:
    assert dumps("\x00\x01x") == '"\\u0000\\u0001x"'


def test_whole_numbers_become_variants_as_their_text() -> None:
    values = pa.array(["12", "-3", None], UTF8)
    for kind in ("Int64|", "Decimal128(38, 0)|"):
        out = _to_variant(values, pa.array([kind] * 3, UTF8))
        assert out.to_pylist() == ["12", "-3", None]
    # A scale keeps the general path: 1.50 is the DECIMAL 1.5.
    assert _to_variant(pa.array(["1.50"], UTF8), pa.array(["Decimal128(10, 2)|"], UTF8)).to_pylist() == [
        "1.5"
    ]


# --- orjson and whole-array paths against json alone ------------------------------------------------

_STRINGS = [
    "",
    "a",
    "é",
    "日本",
    "😀",
    '\n\t"\\',
    "\x01\x1f",
    "\u2028",
    "x.5",
    "1e5",
    "null",
    "\x7f",
    "a/b",
    "\x08",
]


def _value(rng: random.Random, depth: int = 0) -> object:
    """Values of every kind a VARIANT holds (and a few only the general writer takes)."""
    pick = rng.random()
    if depth > 3 or pick < 0.45:
        scalars = [rng.randint(-(10**6), 10**6), 2**63 - 1, -(2**63), 2**64, 10**30, rng.choice(_STRINGS)]
        scalars += [True, False, None, 1.5, -0.0, 1e300, 5e-324, float("nan"), float("inf"), 0.1]
        scalars += [Decimal("1.50"), Decimal("-0.001"), Decimal("12345678901234567890.123"), b"\x00\xff"]
        return rng.choice([*scalars, dt.date(2024, 1, 2)])
    if pick < 0.75:
        return {
            rng.choice([*_STRINGS, "k1", "K2", "b", "A"]): _value(rng, depth + 1)
            for _ in range(rng.randint(0, 4))
        }
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def _json_only_dumps(value: object) -> str:
    if type(value) is int:
        return str(value)
    if type(value) is str:
        return json.dumps(value, ensure_ascii=False)
    return _unmarked(json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def _json_only_parsed(text: str | None) -> object:
    if text is None:
        return MISSING
    try:
        return json.loads(text, parse_float=number)
    except ValueError:
        try:
            return loads(text) if text[:1] in ("{", "[") else text
        except ValueError:
            return text


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and json.dumps(a, default=repr, sort_keys=True) == json.dumps(
        b, default=repr, sort_keys=True
    )


def test_dumps_and_parsing_give_what_json_alone_gives() -> None:
    # orjson writes and reads most values; DOUBLEs, decimals, NaN, wide integers, bytes and dates
    # (and text that may hold them) take json's exact path: the texts and values must not differ.
    rng = random.Random(7)
    values = [_value(rng) for _ in range(20_000)]
    written = [dumps(v) for v in values]
    assert written == [_json_only_dumps(v) for v in values]
    odd = [
        "NaN",
        '"NaN"',
        "[1,,2]",
        "{a:1}",
        "{'a':1}",
        "[1,2,]",
        "plain",
        "18446744073709551616",
        "-0",
        "  7 ",
        "1E5",
    ]
    texts_ = [*written, *odd, '"\\ud800"', None]
    got = parsed(pa.array(texts_, UTF8))
    assert all(_same(g, _json_only_parsed(t)) for g, t in zip(got, texts_, strict=True))


def test_varchar_becomes_a_json_string_as_dumps_writes_it() -> None:
    values = ["abc", 'q"x', "b\\s", "tab\t", None, "é😀", "", "\x00", "\x7f\u2028", "x\x1fy", "x y"]
    out = _to_variant(pa.array(values, UTF8), pa.array(["Utf8|"] * len(values), UTF8))
    assert out.to_pylist() == [None if v is None else dumps(v) for v in values]
    # A VARIANT's text passes as the value it is, not as a string.
    variant = _to_variant(pa.array(['{"a":1}'], UTF8), pa.array(["Utf8|VARIANT"], UTF8))
    assert variant.to_pylist() == ['{"a":1}']


def test_object_construct_over_columns_gives_what_building_each_object_gives() -> None:
    rng = random.Random(3)
    scalars = [1, -5, 0, Decimal("1.5"), 1.5, -0.0, "abc", 'q"', "é", "\x08", True, None, "NaN"]
    odd = ['{"x":1}', "[1, 2]", '{"b":1,"a":[1.50]}', "1.50", '"\\u00e9"']
    for _ in range(200):
        keys = rng.sample(["b", "a", "c", "é", "A", "k1"], rng.randint(0, 4))
        rows = [[None if rng.random() < 0.2 else dumps(rng.choice(scalars)) for _ in keys] for _ in range(8)]
        if keys and rng.random() < 0.3:
            rows[0][0] = rng.choice(odd)
        key_lists = pa.array([keys] * len(rows), pa.list_(pa.string()))
        value_lists = pa.array(rows, pa.list_(pa.string()))
        for keep in (False, True):
            joined = _object_of_columns(key_lists, value_lists, keep)
            assert joined is not None
            each = [
                dumps(
                    {k: None if v is None else loads(v) for k, v in zip(keys, row, strict=True) if v or keep}
                )
                for row in rows
            ]
            assert joined.to_pylist() == each
