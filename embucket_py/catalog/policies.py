"""Masking and row access policies, kept in the metastore, and where they are attached.

A policy is a schema object: its signature (argument names and types), return type and body
(Snowflake SQL). An attachment ties a policy to a table's or view's column (masking: one per
column) or to a list of its columns (row access: one per table). The engine applies them where a
query reads the object (engine/policies.py).
https://docs.snowflake.com/en/user-guide/security-column-ddm-intro
https://docs.snowflake.com/en/user-guide/security-row-intro
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import SqlCompilationError, already_exists

MASKING = "MASKING_POLICY"
ROW_ACCESS = "ROW_ACCESS_POLICY"
KIND_WORDS = {MASKING: "Masking policy", ROW_ACCESS: "Row access policy"}

_meta = sa.MetaData()
policies_table = sa.Table(
    "embucket_policies",
    _meta,
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("signature", sa.Text, nullable=False),  # JSON [[argument, type], ...]
    sa.Column("returns", sa.String(255), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("comment", sa.Text),
    sa.Column("owner", sa.String(255)),
    sa.Column("created_on", sa.DateTime, nullable=False),
)
attachments_table = sa.Table(
    "embucket_policy_attachments",
    _meta,
    sa.Column("ref_database", sa.String(255), primary_key=True),
    sa.Column("ref_schema", sa.String(255), primary_key=True),
    sa.Column("ref_name", sa.String(255), primary_key=True),
    # The masked column; "" for the table's row access policy (one per table).
    sa.Column("ref_column", sa.String(255), primary_key=True),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("columns", sa.Text, nullable=False),  # JSON: the columns passed as the arguments
    sa.Column("policy_database", sa.String(255), nullable=False),
    sa.Column("policy_schema", sa.String(255), nullable=False),
    sa.Column("policy_name", sa.String(255), nullable=False),
)


# The attachments of a statement's tables, built once (every query with tables runs it: building
# the clause took longer than the lookup).
_ATTACHED = sa.select(attachments_table).where(
    sa.tuple_(
        attachments_table.c.ref_database, attachments_table.c.ref_schema, attachments_table.c.ref_name
    ).in_(sa.bindparam("keys", expanding=True))
)


@dataclass(frozen=True)
class Policy:
    database: str
    schema: str
    name: str
    kind: str  # MASKING | ROW_ACCESS
    signature: tuple[tuple[str, str], ...]  # (argument name, Snowflake type)
    returns: str
    body: str  # Snowflake SQL expression over the arguments
    comment: str | None = None
    owner: str | None = None
    created_on: datetime | None = None

    @property
    def parts(self) -> tuple[str, str, str]:
        return (self.database, self.schema, self.name)


@dataclass(frozen=True)
class Attachment:
    ref: tuple[str, str, str]  # the table or view
    column: str  # the masked column; "" for a row access policy
    kind: str
    columns: tuple[str, ...]  # the columns given to the policy's arguments, in order
    policy: tuple[str, str, str]
    tag: tuple[str, str, str] | None = None  # the tag that brings the policy (catalog/tags.py)


def _stored(parts: Sequence[str]) -> tuple[str, ...]:
    return tuple(naming.stored(p) for p in parts)


def attachments_of(ref: Sequence[str]) -> sa.ColumnElement[bool]:
    """The attachment rows of one table or view."""
    c = attachments_table.c
    database, schema, name = _stored(ref)
    return sa.and_(c.ref_database == database, c.ref_schema == schema, c.ref_name == name)


def ref_key(parts: Sequence[str]) -> tuple[str, ...]:
    """How `Policies.attached` keys an object (its stored name)."""
    return _stored(parts)


class Policies:
    """CRUD of policies and their attachments over the metastore's SQL database."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)

    # --- policies ---------------------------------------------------------------------------------

    def _match(self, parts: tuple[str, str, str]) -> sa.ColumnElement[bool]:
        c = policies_table.c
        database, schema, name = _stored(parts)
        return sa.and_(c.database == database, c.schema == schema, c.name == name)

    def get(self, parts: tuple[str, str, str], kind: str | None = None) -> Policy | None:
        query = sa.select(policies_table).where(self._match(parts))
        with self.metastore.engine.connect() as conn:
            row = conn.execute(query).first()
        policy = None if row is None else _policy(row)
        return policy if policy is not None and kind in (None, policy.kind) else None

    def list(self, kind: str, schemas: list[tuple[str, str]]) -> list[Policy]:
        c = policies_table.c
        wanted = {_stored(s) for s in schemas}
        with self.metastore.engine.connect() as conn:
            rows = conn.execute(sa.select(policies_table).where(c.kind == kind).order_by(c.name))
            return [_policy(r) for r in rows if (r.database, r.schema) in wanted]

    def create(self, policy: Policy, *, replace: bool, if_not_exists: bool) -> bool:
        """Returns False when it existed and IF NOT EXISTS was given.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
            SqlCompilationError: OR REPLACE of a policy that is attached somewhere.
        """
        self.metastore.require_schema(policy.database, policy.schema)
        match = self._match(policy.parts)
        database, schema, name = _stored(policy.parts)
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(policies_table.c.name).where(match)).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists(KIND_WORDS[policy.kind], policy.name)
                self._refuse_attached(conn, policy.parts)
                conn.execute(policies_table.delete().where(match))
            conn.execute(
                policies_table.insert().values(
                    database=database,
                    schema=schema,
                    name=name,
                    kind=policy.kind,
                    signature=json.dumps([list(a) for a in policy.signature]),
                    returns=policy.returns,
                    body=policy.body,
                    comment=policy.comment,
                    owner=policy.owner,
                    created_on=datetime.now(UTC),
                )
            )
        return True

    def alter(self, parts: tuple[str, str, str], **values: object) -> bool:
        """Sets `body` or `comment` (None removes it); False when there is no such policy."""
        with self.metastore.engine.begin() as conn:
            return bool(
                conn.execute(policies_table.update().where(self._match(parts)).values(**values)).rowcount
            )

    def rename(self, parts: tuple[str, str, str], to: tuple[str, str, str], kind: str) -> bool:
        """Moves a policy to a new name; its attachments follow. False when there is none."""
        moved = self.metastore.move_object(policies_table, KIND_WORDS[kind], parts, to)
        if moved:
            c = attachments_table.c
            old, new = _stored(parts), _stored(to)
            with self.metastore.engine.begin() as conn:
                conn.execute(
                    attachments_table.update()
                    .where(c.policy_database == old[0], c.policy_schema == old[1], c.policy_name == old[2])
                    .values(policy_database=new[0], policy_schema=new[1], policy_name=new[2])
                )
        return moved

    def drop(self, parts: tuple[str, str, str]) -> bool:
        """Raises SqlCompilationError while the policy is attached somewhere."""
        with self.metastore.engine.begin() as conn:
            self._refuse_attached(conn, parts)
            return bool(conn.execute(policies_table.delete().where(self._match(parts))).rowcount)

    def _refuse_attached(self, conn: sa.Connection, parts: tuple[str, str, str]) -> None:
        c = attachments_table.c
        database, schema, name = _stored(parts)
        where = sa.and_(c.policy_database == database, c.policy_schema == schema, c.policy_name == name)
        if conn.execute(sa.select(c.ref_name).where(where).limit(1)).first() is not None:
            raise SqlCompilationError(
                f"Policy {naming.quote(parts[2])} cannot be dropped/replaced as it is associated"
                " with one or more entities."
            )

    # --- attachments ------------------------------------------------------------------------------

    def attach(self, attachment: Attachment, *, force: bool = False) -> None:
        """Raises SqlCompilationError when the column (masking) or the table (row access) has a
        policy of that kind already, unless FORCE replaces a masking policy."""
        c = attachments_table.c
        key = self._ref_key(attachment.ref, attachment.column)
        with self.metastore.engine.begin() as conn:
            held = conn.execute(sa.select(c.policy_name).where(key)).first()
            if held is not None:
                if attachment.kind == ROW_ACCESS:
                    raise SqlCompilationError(
                        f"Object {naming.quote(attachment.ref[2])} already has a ROW_ACCESS_POLICY."
                        " Only one ROW_ACCESS_POLICY is allowed at a time."
                    )
                if not force:
                    raise SqlCompilationError(
                        "Specified column already attached to another masking policy. A column cannot"
                        " be attached to multiple masking policies. Please drop the current"
                        " association in order to attach a new masking policy."
                    )
                conn.execute(attachments_table.delete().where(key))
            ref, policy = _stored(attachment.ref), _stored(attachment.policy)
            conn.execute(
                attachments_table.insert().values(
                    ref_database=ref[0],
                    ref_schema=ref[1],
                    ref_name=ref[2],
                    ref_column=naming.stored(attachment.column) if attachment.column else "",
                    kind=attachment.kind,
                    columns=json.dumps(list(attachment.columns)),
                    policy_database=policy[0],
                    policy_schema=policy[1],
                    policy_name=policy[2],
                )
            )

    def detach(
        self, ref: tuple[str, str, str], column: str, policy: tuple[str, str, str] | None = None
    ) -> bool:
        """Removes a column's masking policy (column given) or the table's row access policy
        (column "", `policy` the one named); False when there was none to remove."""
        c = attachments_table.c
        where = self._ref_key(ref, column)
        if policy is not None:
            database, schema, name = _stored(policy)
            where = sa.and_(
                where, c.policy_database == database, c.policy_schema == schema, c.policy_name == name
            )
        with self.metastore.engine.begin() as conn:
            return bool(conn.execute(attachments_table.delete().where(where)).rowcount)

    def detach_all(self, ref: tuple[str, str, str]) -> None:
        """Removes every policy of a table (it is dropped)."""
        with self.metastore.engine.begin() as conn:
            conn.execute(attachments_table.delete().where(attachments_of(ref)))

    def move_attachments(self, ref: tuple[str, str, str], to: tuple[str, str, str]) -> None:
        """A renamed table keeps its policies."""
        database, schema, name = _stored(to)
        with self.metastore.engine.begin() as conn:
            conn.execute(
                attachments_table.update()
                .where(attachments_of(ref))
                .values(ref_database=database, ref_schema=schema, ref_name=name)
            )

    def copy_attachments(
        self,
        ref: tuple[str, str, str],
        to: tuple[str, str, str],
        schemas: tuple[tuple[str, str], tuple[str, str]] | None = None,
    ) -> None:
        """A clone is protected as its source: the source's attachments, copied. `schemas`: (source
        schema, cloned schema) when the clone's schema was cloned with its policies, whose
        attachments then name the cloned policies."""
        for a in self.attached_to(ref):
            policy = a.policy
            if schemas is not None and policy[:2] == schemas[0]:
                policy = (*schemas[1], policy[2])
            self.attach(dataclasses.replace(a, ref=to, policy=policy), force=True)

    def _ref_key(self, ref: tuple[str, str, str], column: str) -> sa.ColumnElement[bool]:
        column_key = attachments_table.c.ref_column == (naming.stored(column) if column else "")
        return sa.and_(attachments_of(ref), column_key)

    def attached(self, refs: Sequence[Sequence[str]]) -> dict[tuple[str, ...], list[Attachment]]:
        """The attachments of each of the objects (one lookup for them all), by `ref_key`;
        objects without any are left out."""
        if not refs:
            return {}
        found: dict[tuple[str, ...], list[Attachment]] = {}
        with self.metastore.engine.connect() as conn:
            for row in conn.execute(_ATTACHED, {"keys": sorted({_stored(r) for r in refs})}):
                key = (row.ref_database, row.ref_schema, row.ref_name)
                found.setdefault(key, []).append(_attachment(row))
        return found

    def attached_to(self, ref: Sequence[str]) -> list[Attachment]:
        """The attachments of one table or view."""
        return self.attached([ref]).get(ref_key(ref), [])

    def masked_columns(self, ref: Sequence[str]) -> dict[str, str]:
        """Each masked column of a table -> its policy's qualified name (DESCRIBE TABLE shows it)."""
        return {
            a.column: ".".join(map(naming.quote, a.policy))
            for a in self.attached_to(ref)
            if a.kind == MASKING
        }

    def references(self, policy: tuple[str, str, str] | None = None) -> list[Attachment]:
        """Every attachment (of one policy, when named)."""
        c = attachments_table.c
        query = sa.select(attachments_table)
        if policy is not None:
            database, schema, name = _stored(policy)
            query = query.where(
                c.policy_database == database, c.policy_schema == schema, c.policy_name == name
            )
        with self.metastore.engine.connect() as conn:
            return [_attachment(r) for r in conn.execute(query.order_by(c.ref_name, c.ref_column))]


def _policy(row: sa.Row) -> Policy:
    return Policy(
        naming.display(row.database),
        naming.display(row.schema),
        naming.display(row.name),
        row.kind,
        tuple((a, t) for a, t in json.loads(row.signature)),
        row.returns,
        row.body,
        row.comment,
        row.owner,
        row.created_on,
    )


def _attachment(row: sa.Row) -> Attachment:
    return Attachment(
        (naming.display(row.ref_database), naming.display(row.ref_schema), naming.display(row.ref_name)),
        naming.display(row.ref_column) if row.ref_column else "",
        row.kind,
        tuple(json.loads(row.columns)),
        (
            naming.display(row.policy_database),
            naming.display(row.policy_schema),
            naming.display(row.policy_name),
        ),
    )
