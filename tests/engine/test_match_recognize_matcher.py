"""The MATCH_RECOGNIZE matcher against Python's own regular expressions: with one variable per
row the rows are a string, and the preferred match at each row (greedy and reluctant
quantifiers, alternatives in order, anchors) must be the one `re` finds there. Over random
patterns and rows: an independent implementation of the same preference rules."""

from __future__ import annotations

import random
import re

import pytest

from embucket_py.engine.match_recognize import _match_at, compile_pattern
from embucket_py.errors import SqlCompilationError, Unsupported
from embucket_py.sql.match_recognize import _PatternParser

LETTERS = "ABC"


def _random_pattern(rng: random.Random, depth: int = 0) -> tuple[str, bool]:
    """A pattern and whether it can match no row. Loops never repeat a body that can match no
    row: there engines differ (Python and Perl end the loop at an empty iteration)."""
    kind = rng.random()
    if depth > 2 or kind < 0.35:
        text, empty = rng.choice(LETTERS), False
    elif kind < 0.6:
        parts = [_random_pattern(rng, depth + 1) for _ in range(rng.randint(2, 3))]
        text, empty = "(" + " ".join(p for p, _ in parts) + ")", all(e for _, e in parts)
    else:
        parts = [_random_pattern(rng, depth + 1) for _ in range(rng.randint(2, 3))]
        text, empty = "(" + " | ".join(p for p, _ in parts) + ")", any(e for _, e in parts)
    if rng.random() < 0.5:
        choices = ["?", "{2}", "{1,3}", "{,2}"] if empty else ["*", "+", "?", "{2}", "{1,3}", "{2,}", "{,2}"]
        quantifier = rng.choice(choices)
        text += quantifier + rng.choice(["", "?"])
        empty = empty or quantifier in ("*", "?", "{,2}")
    return text, empty


def _as_regex(pattern: str) -> str:
    out = pattern.replace(" ", "").replace("{,", "{0,")
    return out.replace("$", r"\Z")


def _matcher_spans(pattern: str, rows: str) -> list[list[int] | None]:
    names = list(LETTERS)  # variable i is letter i, so classes read back as letters
    program = compile_pattern(_PatternParser(pattern, names).parse())
    conditions = [[c == letter for c in rows] for letter in LETTERS]
    return [_match_at(program, conditions, len(rows), start) for start in range(len(rows) + 1)]


@pytest.mark.parametrize("seed", range(300))
def test_preferred_matches_are_those_of_a_backtracking_regex(seed: int) -> None:
    rng = random.Random(seed)
    pattern, _ = _random_pattern(rng)
    if rng.random() < 0.2:
        pattern = "^ " + pattern
    if rng.random() < 0.2:
        pattern += " $"
    rows = "".join(rng.choice(LETTERS) for _ in range(rng.randint(0, 12)))
    regex = re.compile(_as_regex(pattern))
    for start, classes in enumerate(_matcher_spans(pattern, rows)):
        found = regex.match(rows, start)
        expected = None if found is None else found.group(0)
        got = None if classes is None else "".join(LETTERS[i] for i in classes)
        assert got == expected, (pattern, rows, start)


def test_each_row_keeps_the_variable_it_matched_as() -> None:
    # Both variables accept every row: the first alternative and the greedy loop decide.
    program = compile_pattern(_PatternParser("X+ Y{2}", names := []).parse())
    assert names == ["X", "Y"]
    everywhere = [[True] * 5, [True] * 5]
    assert _match_at(program, everywhere, 5, 0) == [0, 0, 0, 1, 1]
    reluctant = compile_pattern(_PatternParser("X+? Y+", []).parse())
    assert _match_at(reluctant, everywhere, 5, 0) == [0, 1, 1, 1, 1]


def test_long_runs_match_without_recursion() -> None:
    program = compile_pattern(_PatternParser("a b+ c", []).parse())
    rows = 50_000
    conditions = [
        [i == 0 for i in range(rows)],
        [0 < i < rows - 1 for i in range(rows)],
        [i == rows - 1 for i in range(rows)],
    ]
    classes = _match_at(program, conditions, rows, 0)
    assert classes is not None and len(classes) == rows and classes[-1] == 2


@pytest.mark.parametrize(
    ("pattern", "error"),
    [
        ("PERMUTE(a, b)", Unsupported),
        ("a {- b -} c", Unsupported),
        ("(a b", SqlCompilationError),
        ("a | ", SqlCompilationError),
        ("a{3,1}", SqlCompilationError),
    ],
)
def test_bad_patterns_are_refused(pattern: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        _PatternParser(pattern, []).parse()
