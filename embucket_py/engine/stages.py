"""Stage statements: CREATE/DROP/SHOW/DESCRIBE STAGE and FILE FORMAT, LIST, REMOVE, PUT, GET.

PUT and GET never move bytes here: they answer with a `Transfer` (where the client uploads or
downloads), which the server turns into the v1 protocol's stageInfo for the client's version.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from embucket_py import naming
from embucket_py.catalog import grants
from embucket_py.catalog.grants import Securable
from embucket_py.catalog.tables import TableName, Tables
from embucket_py.engine import access, transactions
from embucket_py.engine.result import OK, QueryResult, StatementType, constant, status
from embucket_py.errors import SqlCompilationError, Unsupported, object_not_found
from embucket_py.sessions.session import Session
from embucket_py.sql import stages as sql
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import like_matches, normalize
from embucket_py.sql.stages import StageLocation
from embucket_py.stages.fileio import StagedFile, StageStore, cached_md5, internal_root
from embucket_py.stages.formats import FileFormat, file_format, option_text, show_options
from embucket_py.stages.registry import StageInfo, StageRegistry
from embucket_py.types import MAX_VARCHAR, SfType

TEXT = SfType("TEXT", length=MAX_VARCHAR)
NUMBER = SfType("FIXED", 38, 0)
TIMESTAMP = SfType("TIMESTAMP_LTZ", scale=3)


@dataclass(frozen=True)
class Resolved:
    """A stage location made concrete: where its files are and how LIST names them."""

    store: StageStore  # rooted at the stage's root
    path: str  # below the root
    display: str  # prefix of names in LIST / COPY results
    stage: StageInfo | None
    key: str | None  # internal stages: the root below the internal stages' folder

    def name(self, file: StagedFile) -> str:
        return f"{self.display}{file.path}"


@dataclass
class Transfer:
    """What a PUT or GET asks the client to do."""

    command: str  # UPLOAD DOWNLOAD
    src_locations: list[str]
    key: str  # internal stage root (+ path for uploads) below the internal stages' folder
    local_dir: str  # the same place on this machine's file system (LOCAL_FS clients)
    options: dict[str, Any] = field(default_factory=dict)
    local_location: str | None = None  # GET: the client's target directory


@dataclass
class TransferResult(QueryResult):
    transfer: Transfer | None = None


def stage_folder(parts: list[str]) -> str:
    """The folder, under the internal stages' root, of a database, a schema ([database, schema]:
    its named and tables' stages) or a named stage ([database, schema, name])."""
    return "/".join(naming.stored(p) for p in parts)


class StageResolver:
    """Stage references -> stores, for one engine (stages live under its warehouse)."""

    def __init__(self, tables: Tables, registry: StageRegistry) -> None:
        self.tables = tables
        self.registry = registry
        self.internal = internal_root(tables.metastore.warehouse)

    def internal_store(self, key: str) -> StageStore:
        return StageStore(f"{self.internal}/{key}")

    def stage_key(self, stage: StageInfo) -> str:
        suffix = f".tmp{stage.session_id}" if stage.temporary else ""
        return stage_folder([stage.database, stage.schema, stage.name]) + suffix

    def resolve(self, location: StageLocation, session: Session) -> Resolved:
        """Raises: ObjectNotFound for a missing (or invisible) stage or table; AccessDenied."""
        if location.kind == "USER":
            key = f"~{session.user.lower()}"
            return Resolved(self.internal_store(key), location.path, "", None, key)
        if location.kind == "TABLE":
            ref = TableName(*location.parts)
            if not self.tables.exists(ref):
                raise object_not_found("Table", str(ref))
            if transactions.key(ref) not in session.temporary:  # a table's stage is its owner's
                self.require(session, "OWNERSHIP", Securable("TABLE", *location.parts))
            key = stage_folder(location.parts[:2]) + f"/%{naming.stored(ref.name)}"
            return Resolved(self.internal_store(key), location.path, "", None, key)
        stage = self.registry.require_stage(location.parts, session.id)
        if not stage.temporary:
            self.require(session, "ANY", grants.stage(stage.database, stage.schema, stage.name))
        if stage.external:
            assert stage.url is not None
            store = StageStore(stage.url, stage.credentials, stage.endpoint)
            return Resolved(store, location.path, store.root, stage, None)
        key = self.stage_key(stage)
        return Resolved(self.internal_store(key), location.path, f"{stage.name.lower()}/", stage, key)

    def require(self, session: Session, privilege: str, on: Securable) -> None:
        """Stages are checked here, where every statement resolves them (tables in `access`)."""
        registry = self.tables.metastore.grants
        access.require(registry, access.active_roles(registry, session), access.Need(privilege, on))

    def stage_format(
        self, resolved: Resolved, inline: dict[str, Any] | None, session: Session, ctx: SqlContext
    ) -> FileFormat:
        """The format a statement uses: inline options, else the stage's, else CSV defaults."""
        options = inline if inline else (resolved.stage.file_format if resolved.stage else {})
        return self.named_or_inline(options or {}, session, ctx)

    def named_or_inline(self, options: dict[str, Any], session: Session, ctx: SqlContext) -> FileFormat:
        name = options.get("FORMAT_NAME")
        if name:
            parts = sql.stage_location("@" + str(name), ctx).parts
            return file_format(self.registry.require_file_format(parts, session.id).options)
        return file_format(options)


# --- DDL -----------------------------------------------------------------------------------------


def create_stage(resolver: StageResolver, session: Session, d: sql.StageDef) -> QueryResult:
    if d.url is not None and not d.url.lower().startswith(("s3://", "s3a://", "file://")):
        raise Unsupported(f"External stage URL '{d.url}' is not supported (use s3:// or file://).")
    if d.file_format:
        file_format({k: v for k, v in d.file_format.items() if k != "FORMAT_NAME"})
    session_id = session.id if d.temporary else 0
    database, schema, name = d.parts
    if not d.temporary:
        resolver.require(session, "CREATE STAGE", Securable("SCHEMA", database, schema))
    old = resolver.registry.stage(d.parts, session.id) if d.replace else None
    created = resolver.registry.create_stage(
        d.parts,
        url=d.url,
        credentials=d.credentials,
        endpoint=d.endpoint,
        file_format=d.file_format,
        comment=d.comment,
        session_id=session_id,
        replace=d.replace,
        if_not_exists=d.if_not_exists,
    )
    if old is not None and not old.external and old.session_id == session_id:
        resolver.internal_store(resolver.stage_key(old)).delete_all()
    if not created:
        return status(f"{d.parts[2]} already exists, statement succeeded.")
    if not d.temporary:
        on = grants.stage(database, schema, name)
        resolver.tables.metastore.grants.forget(on)
        resolver.tables.metastore.grants.set_owner(on, session.role, session.role)
    return status(f"Stage area {d.parts[2]} successfully created.")


def drop(resolver: StageResolver, session: Session, ref: sql.ObjectRef) -> QueryResult:
    if ref.kind == "STAGE":
        stage = resolver.registry.stage(ref.parts, session.id)
        if stage is not None and not stage.temporary:
            resolver.require(session, "OWNERSHIP", grants.stage(stage.database, stage.schema, stage.name))
        if not resolver.registry.drop_stage(ref.parts, session.id, if_exists=ref.if_exists):
            return status(f"Drop statement executed successfully ({ref.parts[2]} already dropped).")
        if stage is not None and not stage.external:
            resolver.internal_store(resolver.stage_key(stage)).delete_all()
        return status(f"{ref.parts[2]} successfully dropped.")
    if not resolver.registry.drop_file_format(ref.parts, session.id, if_exists=ref.if_exists):
        return status(f"Drop statement executed successfully ({ref.parts[2]} already dropped).")
    return status(f"{ref.parts[2]} successfully dropped.")


def create_file_format(resolver: StageResolver, session: Session, d: sql.FileFormatDef) -> QueryResult:
    fmt = file_format(d.options)
    created = resolver.registry.create_file_format(
        d.parts,
        {"TYPE": fmt.type, **fmt.options},
        comment=d.comment,
        session_id=session.id if d.temporary else 0,
        replace=d.replace,
        if_not_exists=d.if_not_exists,
    )
    if not created:
        return status(f"{d.parts[2]} already exists, statement succeeded.")
    return status(f"File format {d.parts[2]} successfully created.")


def alter_file_format(resolver: StageResolver, session: Session, d: sql.FileFormatDef) -> QueryResult:
    if d.if_exists and resolver.registry.file_format(d.parts, session.id) is None:
        return status(OK)
    if d.rename_to is not None:
        resolver.registry.rename_file_format(d.parts, d.rename_to, session.id)
    else:
        current = resolver.registry.require_file_format(d.parts, session.id)
        merged = {**current.options, **d.options}
        file_format(merged)  # validate
        resolver.registry.alter_file_format(d.parts, session.id, d.options, d.comment)
    return status(OK)


def _show_scope(tree: exp.Show, ctx: SqlContext) -> tuple[str, str | None]:
    scope = tree.args.get("scope")
    kind = str(tree.args.get("scope_kind") or "").upper()
    if kind == "DATABASE" and isinstance(scope, exp.Table):
        return normalize(scope.this), None
    if kind == "SCHEMA" and isinstance(scope, exp.Table):
        database = normalize(scope.args["db"]) if scope.args.get("db") else ctx.database
        return str(database), normalize(scope.this)
    if ctx.database is None:
        raise SqlCompilationError(
            "Cannot perform SHOW. This session does not have a current database.",
            code=90105,
            sqlstate="22000",
        )
    return ctx.database, ctx.schema


def _like(tree: exp.Show) -> str | None:
    like = tree.args.get("like")
    return like.name if like is not None else None


def show(resolver: StageResolver, session: Session, tree: exp.Show, ctx: SqlContext) -> QueryResult:
    database, schema = _show_scope(tree, ctx)
    pattern = _like(tree)
    if tree.name.upper() == "STAGES":
        columns = [
            ("created_on", TIMESTAMP),
            ("name", TEXT),
            ("database_name", TEXT),
            ("schema_name", TEXT),
            ("url", TEXT),
            ("has_credentials", TEXT),
            ("has_encryption_key", TEXT),
            ("owner", TEXT),
            ("comment", TEXT),
            ("region", TEXT),
            ("type", TEXT),
            ("cloud", TEXT),
            ("notification_channel", TEXT),
            ("storage_integration", TEXT),
            ("endpoint", TEXT),
            ("owner_role_type", TEXT),
            ("directory_enabled", TEXT),
        ]
        rows = [
            (
                s.created_on,
                s.name,
                s.database,
                s.schema,
                s.url or "",
                "Y" if s.credentials else "N",
                "N",
                session.role,
                s.comment or "",
                None,
                ("EXTERNAL" if s.external else "INTERNAL") + (" TEMPORARY" if s.temporary else ""),
                "AWS" if s.url and s.url.startswith("s3") else None,
                None,
                None,
                s.endpoint,
                "ROLE",
                "N",
            )
            for s in resolver.registry.stages(database, schema, session.id)
            if pattern is None or like_matches(pattern, s.name)
        ]
        return constant(columns, rows, StatementType.SHOW)
    columns = [
        ("created_on", TIMESTAMP),
        ("name", TEXT),
        ("database_name", TEXT),
        ("schema_name", TEXT),
        ("type", TEXT),
        ("owner", TEXT),
        ("comment", TEXT),
        ("format_options", TEXT),
        ("owner_role_type", TEXT),
    ]
    rows = []
    for f in resolver.registry.file_formats(database, schema, session.id):
        if pattern is not None and not like_matches(pattern, f.name):
            continue
        fmt = file_format(f.options)
        options = {k: v for k, v in show_options(fmt).items() if k != "TYPE"}
        rows.append(
            (
                f.created_on,
                f.name,
                f.database,
                f.schema,
                fmt.type,
                session.role,
                f.comment or "",
                _json(options),
                "ROLE",
            )
        )
    return constant(columns, rows, StatementType.SHOW)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def describe(resolver: StageResolver, session: Session, ref: sql.ObjectRef) -> QueryResult:
    if ref.kind == "FILE FORMAT":
        fmt = file_format(resolver.registry.require_file_format(ref.parts, session.id).options)
        default = file_format({"TYPE": fmt.type})
        columns = [
            ("property", TEXT),
            ("property_type", TEXT),
            ("property_value", TEXT),
            ("property_default", TEXT),
        ]
        rows = [
            (
                k,
                type(v)
                .__name__.replace("str", "String")
                .replace("int", "Long")
                .replace("bool", "Boolean")
                .replace("list", "List")
                .replace("NoneType", "String"),
                option_text(v),
                option_text(show_options(default).get(k)),
            )
            for k, v in show_options(fmt).items()
        ]
        return constant(columns, rows, StatementType.DESCRIBE)
    stage = resolver.registry.require_stage(ref.parts, session.id)
    fmt = resolver.named_or_inline(stage.file_format, session, SqlContext(stage.database, stage.schema))
    default = show_options(file_format({"TYPE": fmt.type}))
    rows = [
        ("STAGE_FILE_FORMAT", k, "String", option_text(v), option_text(default.get(k)))
        for k, v in show_options(fmt).items()
    ]
    rows += [
        ("STAGE_LOCATION", "URL", "String", f'["{stage.url}"]' if stage.url else "", ""),
        ("STAGE_LOCATION", "ENDPOINT", "String", stage.endpoint or "", ""),
        ("STAGE_CREDENTIALS", "AWS_KEY_ID", "String", str(stage.credentials.get("AWS_KEY_ID", "")), ""),
    ]
    columns = [
        ("parent_property", TEXT),
        ("property", TEXT),
        ("property_type", TEXT),
        ("property_value", TEXT),
        ("property_default", TEXT),
    ]
    return constant(columns, rows, StatementType.DESCRIBE)


# --- files ---------------------------------------------------------------------------------------


def list_files(resolver: StageResolver, session: Session, d: sql.ListDef) -> QueryResult:
    resolved = resolver.resolve(d.location, session)
    files = resolved.store.list(resolved.path, d.pattern)
    if d.remove:
        for f in files:
            resolved.store.delete(f.path)
        return constant(
            [("name", TEXT), ("result", TEXT)],
            [(resolved.name(f), "removed") for f in files],
            StatementType.SHOW,
        )
    rows = [
        (
            resolved.name(f),
            f.size,
            _md5(resolved, f),
            f.modified.strftime("%a, %-d %b %Y %H:%M:%S GMT"),
        )
        for f in files
    ]
    columns = [("name", TEXT), ("size", NUMBER), ("md5", TEXT), ("last_modified", TEXT)]
    return constant(columns, rows, StatementType.SHOW)


def _md5(resolved: Resolved, file: StagedFile) -> str:
    # Internal stages remember digests beside the files; external ones are only read.
    return cached_md5(resolved.store, file) if resolved.key is not None else resolved.store.digest(file.path)


def _internal(resolved: Resolved, what: str) -> str:
    if resolved.key is None:
        raise SqlCompilationError(f"{what} is not supported for external stages.", code=2, sqlstate="0A000")
    return resolved.key


def put(resolver: StageResolver, session: Session, d: sql.PutDef) -> TransferResult:
    resolved = resolver.resolve(d.target, session)
    key = _internal(resolved, "PUT")
    path = resolved.path.strip("/")
    options = {
        k: d.options[k]
        for k in ("AUTO_COMPRESS", "SOURCE_COMPRESSION", "OVERWRITE", "PARALLEL")
        if k in d.options
    }
    target = f"{key}/{path}" if path else key
    local_dir = resolver.internal_store(target).local_path("") if resolved.store.local else ""
    if local_dir:
        os.makedirs(local_dir, exist_ok=True)
    return _transfer(
        status("", StatementType.DDL), Transfer("UPLOAD", [d.source], target, local_dir, options)
    )


def get(resolver: StageResolver, session: Session, d: sql.GetDef) -> TransferResult:
    resolved = resolver.resolve(d.source, session)
    key = _internal(resolved, "GET")
    pattern = d.options.get("PATTERN")
    files = resolved.store.list(resolved.path, str(pattern) if pattern else None)
    local_dir = resolved.store.local_path("") if resolved.store.local else ""
    options = {k: d.options[k] for k in ("PARALLEL",) if k in d.options}
    transfer = Transfer("DOWNLOAD", [f.path for f in files], key, local_dir, options, d.target)
    return _transfer(status("", StatementType.DDL), transfer)


def _transfer(result: QueryResult, transfer: Transfer) -> TransferResult:
    return TransferResult(result.columns, result.batches, result.statement_type, transfer=transfer)


def end_session(resolver: StageResolver, session: Session) -> None:
    """A session closed: its temporary stages (with their files) and file formats go."""
    for stage in resolver.registry.drop_session(session.id):
        if not stage.external:
            resolver.internal_store(resolver.stage_key(stage)).delete_all()


def local_sources(pattern: str) -> list[str]:
    """The local files a PUT names (a path or a glob), for server-side loads such as the CLI."""
    return sorted(p for p in glob.glob(os.path.expanduser(pattern)) if os.path.isfile(p))
