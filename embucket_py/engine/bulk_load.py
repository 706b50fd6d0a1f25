"""`embucket-py load <file-or-glob> <table>`: local files into a table through COPY INTO.

The files are read where they are (COPY INTO t FROM 'file:///dir/' FILES = (...)), so the load
is the same COPY a client would run: streamed, one Iceberg commit, load history (a file loaded
before is skipped unless --force), and COPY's per-file result rows.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from embucket_py.catalog.metastore import Metastore
from embucket_py.engine.copy import copy_into_table
from embucket_py.engine.executor import Engine
from embucket_py.engine.result import QueryResult
from embucket_py.engine.stages import local_sources
from embucket_py.errors import SqlCompilationError
from embucket_py.sessions.session import Session
from embucket_py.sql.parse import parse
from embucket_py.sql.stages import CopyLoadDef, copy_def
from embucket_py.stages.fileio import StagedFile

_TYPES = {
    ".csv": "CSV",
    ".tsv": "CSV",
    ".json": "JSON",
    ".ndjson": "JSON",
    ".parquet": "PARQUET",
    ".orc": "ORC",
    ".avro": "AVRO",
    ".xml": "XML",
}


def format_of(path: str) -> str:
    name = path.lower()
    for suffix in (".gz", ".zst", ".bz2"):
        name = name.removesuffix(suffix)
    return _TYPES.get(Path(name).suffix, "CSV")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def load_files(
    metastore: Metastore,
    user: str,
    account: str,
    database: str,
    schema: str,
    pattern: str,
    table: str,
    file_format: str,
    options: str,
    copy_options: str = "",
    progress: Callable[[StagedFile, int, int], None] | None = None,
) -> QueryResult:
    """Runs one COPY over the local files `pattern` names.

    Raises:
        SqlCompilationError: no file matches; any COPY error (LoadAborted, ObjectNotFound...).
    """
    files = local_sources(pattern)
    if not files:
        raise SqlCompilationError(f"No file matches '{pattern}'.", code=253006, sqlstate="22000")
    directories = {os.path.dirname(os.path.abspath(f)) for f in files}
    if len(directories) != 1:
        raise SqlCompilationError("All files of one load must be in one directory.", code=2, sqlstate="22000")
    (directory,) = directories
    kind = file_format or format_of(files[0])
    names = ", ".join(_quote(os.path.basename(f)) for f in files)
    sql = (
        f"COPY INTO {table} FROM {_quote('file://' + directory + '/')} FILES = ({names}) "
        f"FILE_FORMAT = (TYPE = {kind} {options}) "
        + ("MATCH_BY_COLUMN_NAME = CASE_INSENSITIVE " if kind != "CSV" else "")
        + copy_options
    )
    engine = Engine(metastore, {})
    session = Session(user=user.upper(), account=account, database=database, schema=schema)
    ctx = engine.sql_context(session)
    (tree,) = parse(sql)
    copy = copy_def(tree, ctx)
    assert isinstance(copy, CopyLoadDef)
    return copy_into_table(engine.tables, engine.stages, session, copy, ctx, progress)
