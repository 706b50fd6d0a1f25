"""Stage statements parse into plain definitions (no engine)."""

from __future__ import annotations

import pytest

from embucket_py.errors import SyntaxError_
from embucket_py.sql.context import SqlContext
from embucket_py.sql.parse import parse
from embucket_py.sql.stages import (
    CopyLoadDef,
    CopyUnloadDef,
    copy_def,
    put_def,
    quote_local_paths,
    stage_location,
)

CTX = SqlContext("DB", "SC")


def test_stage_locations_resolve_names_and_paths() -> None:
    assert stage_location("@~/a/b.csv", CTX) == stage_location("'@~/a/b.csv'", CTX)
    user = stage_location("@~/a/b.csv", CTX)
    assert (user.kind, user.parts, user.path) == ("USER", [], "a/b.csv")
    table = stage_location("@%t/x", CTX)
    assert (table.kind, table.parts, table.path) == ("TABLE", ["DB", "SC", "T"], "x")
    named = stage_location('@other.s."My St"/p/', CTX)
    assert (named.kind, named.parts, named.path) == ("NAMED", ["OTHER", "S", "My St"], "p/")


def test_quoted_stage_name_keeps_case_and_slashes_inside_quotes() -> None:
    named = stage_location('@"a/b"/c', CTX)
    assert (named.parts, named.path) == (["DB", "SC", "a/b"], "c")


def test_not_a_stage_is_a_syntax_error() -> None:
    with pytest.raises(SyntaxError_):
        stage_location("s3://bucket", CTX)


def test_unquoted_put_paths_with_globs_parse() -> None:
    assert quote_local_paths("PUT file:///tmp/*.csv @s") == "PUT 'file:///tmp/*.csv' @s"
    (tree,) = parse("PUT file:///tmp/*.csv @s/in OVERWRITE=TRUE")
    put = put_def(tree, CTX)  # type: ignore[arg-type]
    assert (put.source, put.target.path, put.options["OVERWRITE"]) == ("/tmp/*.csv", "in", True)


def test_copy_load_and_unload_are_told_apart() -> None:
    (load,) = parse("COPY INTO t (a, b) FROM @s FILES=('x.csv') ON_ERROR=CONTINUE FILE_FORMAT=(TYPE=CSV)")
    d = copy_def(load, CTX)  # type: ignore[arg-type]
    assert isinstance(d, CopyLoadDef)
    assert (d.table, d.columns, d.options["FILES"], d.options["ON_ERROR"]) == (
        ["DB", "SC", "T"], ["A", "B"], ["x.csv"], "CONTINUE"
    )  # fmt: skip
    assert d.options["FILE_FORMAT"] == {"TYPE": "CSV"}
    (unload,) = parse("COPY INTO @s/out/ FROM t SINGLE=TRUE")
    u = copy_def(unload, CTX)  # type: ignore[arg-type]
    assert isinstance(u, CopyUnloadDef)
    assert (u.target.path if u.target else None, u.options["SINGLE"]) == ("out/", True)
