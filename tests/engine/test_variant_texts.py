"""The VARIANT fast paths give what the general path gives: text of a JSON value, JSON of a
Python value, TO_VARIANT of whole numbers."""

from __future__ import annotations

import json
from decimal import Decimal

import pyarrow as pa
import pytest

from embucket_py.engine.functions.variant import UTF8, _scalar_text, _to_variant, parsed, text_of
from embucket_py.engine.functions.variant_values import _plain, _unmarked, dumps

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
    "value", [0, -5, 10**30, "abc", "", 'q"uote', "\x00\x01x", "é", True, None, 1.5, Decimal("2.50")]
)
def test_dumps_fast_paths_match_the_general_one(value: object) -> None:
    general = _unmarked(json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    assert dumps(value) == general


def test_whole_numbers_become_variants_as_their_text() -> None:
    values = pa.array(["12", "-3", None], UTF8)
    for kind in ("Int64|", "Decimal128(38, 0)|"):
        out = _to_variant(values, pa.array([kind] * 3, UTF8))
        assert out.to_pylist() == ["12", "-3", None]
    # A scale keeps the general path: 1.50 is the DECIMAL 1.5.
    assert _to_variant(pa.array(["1.50"], UTF8), pa.array(["Decimal128(10, 2)|"], UTF8)).to_pylist() == [
        "1.5"
    ]
