"""Stages, file formats and load history, kept in the metastore's SQL database.

Temporary stages and file formats carry the id of the session that made them (0 = permanent);
a session sees its own temporary objects first, then permanent ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore, add_missing_columns
from embucket_py.errors import already_exists, object_not_found

_meta = sa.MetaData()


def _object_table(name: str, *columns: sa.Column[Any]) -> sa.Table:
    return sa.Table(
        name,
        _meta,
        sa.Column("database", sa.String(255), primary_key=True),
        sa.Column("schema", sa.String(255), primary_key=True),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("session_id", sa.BigInteger, primary_key=True),  # 0: permanent
        *columns,
        sa.Column("comment", sa.Text),
        sa.Column("created_on", sa.DateTime, nullable=False),
    )


stages_table = _object_table(
    "embucket_stages",
    sa.Column("url", sa.Text),  # NULL for internal stages
    sa.Column("credentials", sa.Text, nullable=False),  # JSON
    sa.Column("endpoint", sa.Text),
    sa.Column("file_format", sa.Text, nullable=False),  # JSON options
)
file_formats_table = _object_table(
    "embucket_file_formats",
    sa.Column("options", sa.Text, nullable=False),  # JSON
)
load_history_table = sa.Table(
    "embucket_load_history",
    _meta,
    sa.Column("table_key", sa.String(800), primary_key=True),  # db.schema.table, stored names
    sa.Column("file", sa.String(2000), primary_key=True),  # full URI of the loaded file
    sa.Column("etag", sa.String(128), nullable=False),  # size + modification time
    sa.Column("rows_loaded", sa.BigInteger, nullable=False),
    sa.Column("loaded_on", sa.DateTime, nullable=False),
    # The table's Iceberg uuid: a table made anew under the same name starts with no history.
    sa.Column("table_uuid", sa.String(64)),
    # What COPY answered for the file (INFORMATION_SCHEMA.LOAD_HISTORY); a failed file is kept
    # too, and loaded again by the next COPY.
    sa.Column("file_name", sa.Text),  # as COPY's answer names the file
    sa.Column("status", sa.String(32)),
    sa.Column("rows_parsed", sa.BigInteger),
    sa.Column("error_count", sa.BigInteger),
    sa.Column("error_limit", sa.BigInteger),
    sa.Column("first_error", sa.Text),
    sa.Column("first_error_line", sa.BigInteger),
    sa.Column("first_error_character", sa.BigInteger),
    sa.Column("first_error_column", sa.Text),
)


@dataclass(frozen=True)
class StageInfo:
    database: str
    schema: str
    name: str
    temporary: bool
    url: str | None
    credentials: dict[str, Any]
    endpoint: str | None
    file_format: dict[str, Any]
    comment: str | None
    created_on: datetime
    session_id: int = 0

    @property
    def external(self) -> bool:
        return self.url is not None


@dataclass(frozen=True)
class FileFormatInfo:
    database: str
    schema: str
    name: str
    temporary: bool
    options: dict[str, Any] = field(default_factory=dict)
    comment: str | None = None
    created_on: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass(frozen=True)
class LoadRecord:
    """One file COPY read into a table: COPY's answer for it (from `file_name` on, in the
    answer's column order)."""

    file: str  # full URI
    etag: str
    file_name: str | None  # as COPY's answer names it (None: recorded before names were)
    status: str | None  # LOADED, PARTIALLY_LOADED or LOAD_FAILED (None: recorded before statuses were)
    rows_parsed: int | None
    rows_loaded: int
    error_limit: int | None
    error_count: int | None
    first_error: str | None = None
    first_error_line: int | None = None
    first_error_character: int | None = None
    first_error_column: str | None = None
    loaded_on: datetime | None = None  # when recorded


_FAILED = "LOAD_FAILED"


def load_key(parts: list[str]) -> str:
    """A table's key in the load history: its stored "database.schema.table" (a database's
    alone prefixes its tables' keys)."""
    return ".".join(naming.stored(p) for p in parts)


def _key(database: str, schema: str, name: str) -> dict[str, str]:
    return {"database": naming.stored(database), "schema": naming.stored(schema), "name": naming.stored(name)}


class StageRegistry:
    """CRUD of stages and file formats, and the per-table load history."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)
        add_missing_columns(metastore.engine, load_history_table)

    # --- shared ---------------------------------------------------------------------------------

    def _find(self, table: sa.Table, parts: list[str], session_id: int) -> Any:
        where = [table.c[k] == v for k, v in _key(*parts).items()]
        query = (
            sa.select(table)
            .where(*where, table.c.session_id.in_([0, session_id]))
            .order_by(table.c.session_id.desc())
        )
        with self.metastore.engine.connect() as conn:
            return conn.execute(query).first()

    def _names(self, table: sa.Table, database: str, schema: str | None, session_id: int) -> list[Any]:
        where = [table.c.database == naming.stored(database), table.c.session_id.in_([0, session_id])]
        if schema is not None:
            where.append(table.c.schema == naming.stored(schema))
        with self.metastore.engine.connect() as conn:
            return list(conn.execute(sa.select(table).where(*where).order_by(table.c.name)))

    def _create(
        self,
        table: sa.Table,
        kind: str,
        parts: list[str],
        values: dict[str, Any],
        session_id: int,
        *,
        replace: bool,
        if_not_exists: bool,
    ) -> bool:
        self.metastore.require_schema(parts[0], parts[1])
        key = {**_key(*parts), "session_id": session_id}
        where = [table.c[k] == v for k, v in key.items()]
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(table.c.name).where(*where)).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists(kind, parts[2])
                conn.execute(table.delete().where(*where))
            conn.execute(table.insert().values(**key, **values, created_on=datetime.now(UTC)))
        return True

    def _drop(self, table: sa.Table, kind: str, parts: list[str], session_id: int, if_exists: bool) -> bool:
        row = self._find(table, parts, session_id)
        if row is None:
            if if_exists:
                return False
            raise object_not_found(kind, ".".join(parts))
        key = {**_key(*parts), "session_id": row.session_id}
        with self.metastore.engine.begin() as conn:
            conn.execute(table.delete().where(*(table.c[k] == v for k, v in key.items())))
        return True

    # --- stages ---------------------------------------------------------------------------------

    @staticmethod
    def _stage(row: Any) -> StageInfo:
        return StageInfo(
            naming.display(row.database),
            naming.display(row.schema),
            naming.display(row.name),
            row.session_id != 0,
            row.url,
            json.loads(row.credentials),
            row.endpoint,
            json.loads(row.file_format),
            row.comment,
            row.created_on if row.created_on.tzinfo else row.created_on.replace(tzinfo=UTC),
            row.session_id,
        )

    def stage(self, parts: list[str], session_id: int) -> StageInfo | None:
        row = self._find(stages_table, parts, session_id)
        return self._stage(row) if row is not None else None

    def require_stage(self, parts: list[str], session_id: int) -> StageInfo:
        stage = self.stage(parts, session_id)
        if stage is None:
            raise object_not_found("Stage", ".".join(naming.quote(p) for p in parts))
        return stage

    def stages(self, database: str, schema: str | None, session_id: int) -> list[StageInfo]:
        return [self._stage(r) for r in self._names(stages_table, database, schema, session_id)]

    def create_stage(
        self,
        parts: list[str],
        *,
        url: str | None,
        credentials: dict[str, Any],
        endpoint: str | None,
        file_format: dict[str, Any],
        comment: str | None,
        session_id: int,
        replace: bool,
        if_not_exists: bool,
    ) -> bool:
        values = {
            "url": url,
            "credentials": json.dumps(credentials),
            "endpoint": endpoint,
            "file_format": json.dumps(file_format),
            "comment": comment,
        }
        return self._create(
            stages_table, "Stage", parts, values, session_id, replace=replace, if_not_exists=if_not_exists
        )

    def drop_stage(self, parts: list[str], session_id: int, *, if_exists: bool) -> bool:
        return self._drop(stages_table, "Stage", parts, session_id, if_exists)

    # --- file formats ---------------------------------------------------------------------------

    @staticmethod
    def _format(row: Any) -> FileFormatInfo:
        return FileFormatInfo(
            naming.display(row.database),
            naming.display(row.schema),
            naming.display(row.name),
            row.session_id != 0,
            json.loads(row.options),
            row.comment,
            row.created_on if row.created_on.tzinfo else row.created_on.replace(tzinfo=UTC),
        )

    def file_format(self, parts: list[str], session_id: int) -> FileFormatInfo | None:
        row = self._find(file_formats_table, parts, session_id)
        return self._format(row) if row is not None else None

    def require_file_format(self, parts: list[str], session_id: int) -> FileFormatInfo:
        found = self.file_format(parts, session_id)
        if found is None:
            raise object_not_found("File format", ".".join(naming.quote(p) for p in parts))
        return found

    def file_formats(self, database: str, schema: str | None, session_id: int) -> list[FileFormatInfo]:
        return [self._format(r) for r in self._names(file_formats_table, database, schema, session_id)]

    def create_file_format(
        self,
        parts: list[str],
        options: dict[str, Any],
        *,
        comment: str | None,
        session_id: int,
        replace: bool,
        if_not_exists: bool,
    ) -> bool:
        values = {"options": json.dumps(options), "comment": comment}
        return self._create(
            file_formats_table,
            "File format",
            parts,
            values,
            session_id,
            replace=replace,
            if_not_exists=if_not_exists,
        )

    def alter_file_format(
        self, parts: list[str], session_id: int, options: dict[str, Any], comment: str | None
    ) -> None:
        current = self.require_file_format(parts, session_id)
        row = self._find(file_formats_table, parts, session_id)
        key = {**_key(*parts), "session_id": row.session_id}
        values: dict[str, Any] = {"options": json.dumps({**current.options, **options})}
        if comment is not None:
            values["comment"] = comment
        with self.metastore.engine.begin() as conn:
            conn.execute(
                file_formats_table.update()
                .where(*(file_formats_table.c[k] == v for k, v in key.items()))
                .values(**values)
            )

    def rename_file_format(self, parts: list[str], to: list[str], session_id: int) -> None:
        current = self.require_file_format(parts, session_id)
        if self.file_format(to, session_id) is not None:
            raise already_exists("File format", to[2])
        sid = session_id if current.temporary else 0
        self.create_file_format(
            to, current.options, comment=current.comment, session_id=sid, replace=False, if_not_exists=False
        )
        self._drop(file_formats_table, "File format", parts, session_id, False)

    def drop_file_format(self, parts: list[str], session_id: int, *, if_exists: bool) -> bool:
        return self._drop(file_formats_table, "File format", parts, session_id, if_exists)

    # --- load history ---------------------------------------------------------------------------

    def loaded_files(self, table_key: str, table_uuid: str) -> dict[str, str]:
        """file URI -> etag of every file loaded into a table (COPY skips them unless FORCE).
        Records from before uuids were kept count for whichever table has the name."""
        c = load_history_table.c
        with self.metastore.engine.connect() as conn:
            rows = conn.execute(
                sa.select(c.file, c.etag).where(
                    c.table_key == table_key,
                    sa.or_(c.table_uuid.is_(None), c.table_uuid == table_uuid),
                    sa.or_(c.status.is_(None), c.status != _FAILED),
                )
            )
            return {r.file: r.etag for r in rows}

    def record_loads(self, table_key: str, table_uuid: str, loads: list[LoadRecord]) -> None:
        """Remembers what COPY made of each file for a table, replacing older entries."""
        if not loads:
            return
        now = datetime.now(UTC)
        c = load_history_table.c
        with self.metastore.engine.begin() as conn:
            for load in loads:
                conn.execute(load_history_table.delete().where(c.table_key == table_key, c.file == load.file))
            conn.execute(
                load_history_table.insert(),
                [
                    {k: v for k, v in vars(load).items() if k != "loaded_on"}
                    | {"table_key": table_key, "table_uuid": table_uuid, "loaded_on": now}
                    for load in loads
                ],
            )

    def load_history(self, key_prefix: str) -> list[tuple[str, str | None, LoadRecord]]:
        """(table key, table uuid, record) of every file loaded into the tables whose keys start so."""
        c = load_history_table.c
        query = sa.select(load_history_table).where(
            sa.func.substr(c.table_key, 1, len(key_prefix), type_=sa.String) == key_prefix
        )
        names = [f.name for f in fields(LoadRecord)]
        with self.metastore.engine.connect() as conn:
            rows = conn.execute(query.order_by(c.loaded_on, c.file)).mappings().all()
        return [(r["table_key"], r["table_uuid"], LoadRecord(**{f: r[f] for f in names})) for r in rows]

    def drop_session(self, session_id: int) -> list[StageInfo]:
        """Drops a closed session's temporary stages and file formats; returns the stages."""
        if session_id == 0:
            return []
        with self.metastore.engine.begin() as conn:
            rows = conn.execute(sa.select(stages_table).where(stages_table.c.session_id == session_id))
            stages = [self._stage(r) for r in rows]
            conn.execute(stages_table.delete().where(stages_table.c.session_id == session_id))
            conn.execute(file_formats_table.delete().where(file_formats_table.c.session_id == session_id))
        return stages
