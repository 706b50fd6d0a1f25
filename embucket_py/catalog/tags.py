"""Object tags, kept in the metastore: the tags (schema objects, with their allowed values and
masking policies) and their values on databases, schemas, tables, views and columns.

An object inherits the tags of the objects above it (a column its table's, a table its schema's,
a schema its database's); a value set lower down wins. A tag's masking policy masks every column
whose tag it is (set on the column or inherited) and whose type is the policy's, unless the
column has a masking policy of its own (engine/policies.py applies them).
https://docs.snowflake.com/en/user-guide/object-tagging/introduction
https://docs.snowflake.com/en/user-guide/tag-based-masking-policies
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import SqlCompilationError, already_exists

# Where a tag is set, from the top of the hierarchy down (TABLE covers views too, as on Snowflake).
LEVELS = ("DATABASE", "SCHEMA", "TABLE", "COLUMN")
# Snowflake's limit of tags on one object.
MAX_TAGS = 50

_meta = sa.MetaData()
tags_table = sa.Table(
    "embucket_tags",
    _meta,
    sa.Column("database", sa.String(255), primary_key=True),
    sa.Column("schema", sa.String(255), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("allowed_values", sa.Text),  # JSON list; NULL: any value
    sa.Column("comment", sa.Text),
    sa.Column("owner", sa.String(255)),
    sa.Column("created_on", sa.DateTime, nullable=False),
)
tag_values_table = sa.Table(
    "embucket_tag_values",
    _meta,
    sa.Column("tag_database", sa.String(255), primary_key=True),
    sa.Column("tag_schema", sa.String(255), primary_key=True),
    sa.Column("tag_name", sa.String(255), primary_key=True),
    sa.Column("domain", sa.String(16), primary_key=True),  # one of LEVELS
    # The object: ("db", "", "") for a database, ("db", "s", "") for a schema; the column's table.
    sa.Column("ref_database", sa.String(255), primary_key=True),
    sa.Column("ref_schema", sa.String(255), primary_key=True),
    sa.Column("ref_name", sa.String(255), primary_key=True),
    sa.Column("ref_column", sa.String(255), primary_key=True),  # "" unless domain is COLUMN
    sa.Column("value", sa.Text, nullable=False),
)
tag_masking_table = sa.Table(
    "embucket_tag_masking",
    _meta,
    sa.Column("tag_database", sa.String(255), primary_key=True),
    sa.Column("tag_schema", sa.String(255), primary_key=True),
    sa.Column("tag_name", sa.String(255), primary_key=True),
    sa.Column("policy_database", sa.String(255), primary_key=True),
    sa.Column("policy_schema", sa.String(255), primary_key=True),
    sa.Column("policy_name", sa.String(255), primary_key=True),
)

Parts = tuple[str, str, str]
# Read by every statement that reads tables: built once.
_TAG_POLICIES = sa.select(tag_masking_table)


@dataclass(frozen=True)
class Tag:
    database: str
    schema: str
    name: str
    allowed_values: tuple[str, ...] | None = None
    comment: str | None = None
    owner: str | None = None
    created_on: datetime | None = None

    @property
    def parts(self) -> Parts:
        return (self.database, self.schema, self.name)


@dataclass(frozen=True)
class TagValue:
    tag: Parts
    domain: str  # one of LEVELS
    ref: Parts  # ("db", "", "") for a database, ("db", "s", "") for a schema
    column: str  # "" unless domain is COLUMN
    value: str


def _stored(parts: Sequence[str]) -> tuple[str, ...]:
    return tuple(naming.stored(p) if p else "" for p in parts)


def _tag_match(table: sa.Table, parts: Sequence[str]) -> sa.ColumnElement[bool]:
    database, schema, name = _stored(parts)
    c = table.c
    return sa.and_(c.tag_database == database, c.tag_schema == schema, c.tag_name == name)


def tag_row(parts: Sequence[str]) -> sa.ColumnElement[bool]:
    """One tag's row of tags_table."""
    c = tags_table.c
    database, schema, name = _stored(parts)
    return sa.and_(c.database == database, c.schema == schema, c.name == name)


def values_of_tag(parts: Sequence[str]) -> sa.ColumnElement[bool]:
    """One tag's values, wherever they are set."""
    return _tag_match(tag_values_table, parts)


def values_on(ref: Sequence[str]) -> sa.ColumnElement[bool]:
    """The tag values set on one table or view and its columns."""
    c = tag_values_table.c
    database, schema, name = _stored(ref)
    return sa.and_(
        c.ref_database == database, c.ref_schema == schema, c.ref_name == name, c.domain.in_(LEVELS[2:])
    )


class Tags:
    """CRUD of tags, of their values on objects and of their masking policies."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore
        _meta.create_all(metastore.engine)

    # --- tags --------------------------------------------------------------------------------------

    def get(self, parts: Sequence[str]) -> Tag | None:
        with self.metastore.engine.connect() as conn:
            row = conn.execute(sa.select(tags_table).where(tag_row(parts))).first()
        return None if row is None else _tag(row)

    def list(self, schemas: list[tuple[str, str]]) -> list[Tag]:
        wanted = {_stored(s) for s in schemas}
        with self.metastore.engine.connect() as conn:
            rows = conn.execute(sa.select(tags_table).order_by(tags_table.c.name))
            return [_tag(r) for r in rows if (r.database, r.schema) in wanted]

    def create(self, tag: Tag, *, replace: bool, if_not_exists: bool) -> bool:
        """Returns False when it existed and IF NOT EXISTS was given. OR REPLACE keeps the values
        the tag has on objects; a tag with a masking policy is not replaced.

        Raises:
            ObjectAlreadyExists: it exists and neither OR REPLACE nor IF NOT EXISTS was given.
            SqlCompilationError: OR REPLACE of a tag with a masking policy.
        """
        self.metastore.require_schema(tag.database, tag.schema)
        database, schema, name = _stored(tag.parts)
        with self.metastore.engine.begin() as conn:
            if conn.execute(sa.select(tags_table.c.name).where(tag_row(tag.parts))).first() is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("Tag", tag.name)
                self._refuse_policies(conn, tag.parts, "replaced")
                conn.execute(tags_table.delete().where(tag_row(tag.parts)))
            conn.execute(
                tags_table.insert().values(
                    database=database,
                    schema=schema,
                    name=name,
                    allowed_values=None
                    if tag.allowed_values is None
                    else json.dumps(list(tag.allowed_values)),
                    comment=tag.comment,
                    owner=tag.owner,
                    created_on=datetime.now(UTC),
                )
            )
        return True

    def set_comment(self, parts: Parts, comment: str | None) -> None:
        with self.metastore.engine.begin() as conn:
            conn.execute(tags_table.update().where(tag_row(parts)).values(comment=comment))

    def set_allowed(self, parts: Parts, allowed: tuple[str, ...] | None) -> None:
        stored = None if allowed is None else json.dumps(list(allowed))
        with self.metastore.engine.begin() as conn:
            conn.execute(tags_table.update().where(tag_row(parts)).values(allowed_values=stored))

    def rename(self, parts: Parts, to: Parts) -> bool:
        """Moves a tag to a new name; its values and policies follow. False when there is none."""
        moved = self.metastore.move_object(tags_table, "Tag", parts, to)
        if moved:
            database, schema, name = _stored(to)
            with self.metastore.engine.begin() as conn:
                for table in (tag_values_table, tag_masking_table):
                    conn.execute(
                        table.update()
                        .where(_tag_match(table, parts))
                        .values(tag_database=database, tag_schema=schema, tag_name=name)
                    )
        return moved

    def check_droppable(self, parts: Parts) -> None:
        """Raises SqlCompilationError while the tag has a masking policy (unset it first, as on
        Snowflake). The drop itself sets the tag and its values aside (catalog/dropped.py)."""
        with self.metastore.engine.connect() as conn:
            self._refuse_policies(conn, parts, "dropped")

    def _refuse_policies(self, conn: sa.Connection, parts: Sequence[str], done: str) -> None:
        found = conn.execute(
            sa.select(tag_masking_table.c.policy_name).where(_tag_match(tag_masking_table, parts)).limit(1)
        ).first()
        if found is not None:
            raise SqlCompilationError(
                f"Tag {naming.quote(parts[2])} cannot be {done} as it has a masking policy;"
                " unset the policy first."
            )

    # --- values on objects --------------------------------------------------------------------------

    def set_value(self, v: TagValue) -> None:
        """Sets (or replaces) a tag's value on an object.

        Raises:
            SqlCompilationError: the object would have more than MAX_TAGS tags.
        """
        row = _value_row(v)
        on_object = _value_key(row, ("domain", "ref_database", "ref_schema", "ref_name", "ref_column"))
        with self.metastore.engine.begin() as conn:
            conn.execute(tag_values_table.delete().where(_value_key(row)))
            count = conn.execute(
                sa.select(sa.func.count()).select_from(tag_values_table).where(on_object)
            ).scalar()
            if int(count or 0) >= MAX_TAGS:
                raise SqlCompilationError(f"Too many tags on the object: at most {MAX_TAGS} are allowed.")
            conn.execute(tag_values_table.insert().values(**row))

    def unset_value(self, tag: Parts, domain: str, ref: Parts, column: str = "") -> None:
        key = _value_key(_value_row(TagValue(tag, domain, ref, column, "")))
        with self.metastore.engine.begin() as conn:
            conn.execute(tag_values_table.delete().where(key))

    def direct(self, tag: Parts, domain: str, ref: Parts, column: str = "") -> str | None:
        """The value set on the object itself (SYSTEM$GET_TAG), or None."""
        key = _value_key(_value_row(TagValue(tag, domain, ref, column, "")))
        with self.metastore.engine.connect() as conn:
            found = conn.execute(sa.select(tag_values_table.c.value).where(key)).first()
        return None if found is None else str(found.value)

    def lineage(self, ref: Parts) -> list[TagValue]:
        """Every tag value set on a table or view, its columns, its schema and its database (what
        the table and its columns inherit), in one lookup."""
        c = tag_values_table.c
        database, schema = _stored(ref[:2])
        where = sa.or_(
            sa.and_(c.domain == "DATABASE", c.ref_database == database),
            sa.and_(c.domain == "SCHEMA", c.ref_database == database, c.ref_schema == schema),
            values_on(ref),
        )
        with self.metastore.engine.connect() as conn:
            return [_value(r) for r in conn.execute(sa.select(tag_values_table).where(where))]

    def of_tag(self, tag: Parts) -> list[TagValue]:
        with self.metastore.engine.connect() as conn:
            rows = conn.execute(sa.select(tag_values_table).where(_tag_match(tag_values_table, tag)))
            return [_value(r) for r in rows]

    def drop_object(self, ref: Parts) -> None:
        """A dropped table's or view's tags go with it."""
        with self.metastore.engine.begin() as conn:
            conn.execute(tag_values_table.delete().where(values_on(ref)))

    def move_object(self, ref: Parts, to: Parts) -> None:
        """A renamed table or view keeps its tags."""
        database, schema, name = _stored(to)
        with self.metastore.engine.begin() as conn:
            conn.execute(
                tag_values_table.update()
                .where(values_on(ref))
                .values(ref_database=database, ref_schema=schema, ref_name=name)
            )

    def copy_object(
        self, ref: Parts, to: Parts, schemas: tuple[tuple[str, str], tuple[str, str]] | None = None
    ) -> None:
        """A clone carries its source's tags. `schemas`: (source schema, cloned schema) when the
        clone's schema was cloned with its tags, whose values then name the cloned tags."""
        database, schema, name = _stored(to)
        source, cloned = (_stored(s) for s in schemas) if schemas else ((), ())
        with self.metastore.engine.begin() as conn:
            rows = conn.execute(sa.select(tag_values_table).where(values_on(ref))).mappings().all()
            conn.execute(tag_values_table.delete().where(values_on(to)))
            moved = []
            for r in rows:
                row = {**r, "ref_database": database, "ref_schema": schema, "ref_name": name}
                if (r["tag_database"], r["tag_schema"]) == source:
                    row |= {"tag_database": cloned[0], "tag_schema": cloned[1]}
                moved.append(row)
            if moved:
                conn.execute(tag_values_table.insert(), moved)

    def copy_schema(self, source: tuple[str, str], target: tuple[str, str]) -> None:
        """A cloned schema's tags, with the masking policies of its own they carry (cloned too)."""
        old, new = _stored(source), _stored(target)
        c, m = tags_table.c, tag_masking_table.c
        with self.metastore.engine.begin() as conn:
            tags = conn.execute(sa.select(tags_table).where(c.database == old[0], c.schema == old[1]))
            made = [{**r, "database": new[0], "schema": new[1]} for r in tags.mappings().all()]
            if made:
                conn.execute(tags_table.insert(), made)
            masks = conn.execute(
                sa.select(tag_masking_table).where(m.tag_database == old[0], m.tag_schema == old[1])
            )
            copied = []
            for r in masks.mappings().all():
                row = {**r, "tag_database": new[0], "tag_schema": new[1]}
                if (r["policy_database"], r["policy_schema"]) == old:
                    row |= {"policy_database": new[0], "policy_schema": new[1]}
                copied.append(row)
            if copied:
                conn.execute(tag_masking_table.insert(), copied)

    # --- masking policies of tags --------------------------------------------------------------------

    def set_policy(self, tag: Parts, policy: Parts) -> None:
        t, p = _stored(tag), _stored(policy)
        with self.metastore.engine.begin() as conn:
            conn.execute(
                tag_masking_table.insert().values(
                    tag_database=t[0],
                    tag_schema=t[1],
                    tag_name=t[2],
                    policy_database=p[0],
                    policy_schema=p[1],
                    policy_name=p[2],
                )
            )

    def unset_policy(self, tag: Parts, policy: Parts) -> bool:
        c = tag_masking_table.c
        database, schema, name = _stored(policy)
        where = sa.and_(
            _tag_match(tag_masking_table, tag),
            c.policy_database == database,
            c.policy_schema == schema,
            c.policy_name == name,
        )
        with self.metastore.engine.begin() as conn:
            return bool(conn.execute(tag_masking_table.delete().where(where)).rowcount)

    def rename_policy(self, parts: Parts, to: Parts) -> None:
        """A renamed masking policy stays on its tags."""
        c = tag_masking_table.c
        old, new = _stored(parts), _stored(to)
        with self.metastore.engine.begin() as conn:
            conn.execute(
                tag_masking_table.update()
                .where(c.policy_database == old[0], c.policy_schema == old[1], c.policy_name == old[2])
                .values(policy_database=new[0], policy_schema=new[1], policy_name=new[2])
            )

    def policies(self) -> dict[Parts, list[Parts]]:
        """Each tag that has masking policies -> them (few: read whole)."""
        found: dict[Parts, list[Parts]] = {}
        with self.metastore.engine.connect() as conn:
            for r in conn.execute(_TAG_POLICIES):
                tag = _displayed((r.tag_database, r.tag_schema, r.tag_name))
                found.setdefault(tag, []).append(
                    _displayed((r.policy_database, r.policy_schema, r.policy_name))
                )
        return found

    def tags_of_policy(self, policy: Parts) -> list[Parts]:
        return [tag for tag, policies in self.policies().items() if tuple(policy) in policies]


def _displayed(parts: Sequence[str]) -> Parts:
    database, schema, name = (naming.display(p) if p else "" for p in parts)
    return (database, schema, name)


def _value_row(v: TagValue) -> dict[str, str]:
    tag, ref = _stored(v.tag), _stored(v.ref)
    return {
        "tag_database": tag[0],
        "tag_schema": tag[1],
        "tag_name": tag[2],
        "domain": v.domain,
        "ref_database": ref[0],
        "ref_schema": ref[1],
        "ref_name": ref[2],
        "ref_column": naming.stored(v.column) if v.column else "",
        "value": v.value,
    }


def _value_key(row: dict[str, str], columns: Sequence[str] | None = None) -> sa.ColumnElement[bool]:
    """The row of one tag's value on one object (or, with `columns`, the rows matching those)."""
    c = tag_values_table.c
    return sa.and_(*(c[k] == row[k] for k in columns or [k for k in row if k != "value"]))


def _tag(row: sa.Row) -> Tag:
    allowed = None if row.allowed_values is None else tuple(json.loads(row.allowed_values))
    return Tag(
        naming.display(row.database),
        naming.display(row.schema),
        naming.display(row.name),
        allowed,
        row.comment,
        row.owner,
        row.created_on,
    )


def _value(row: sa.Row) -> TagValue:
    return TagValue(
        _displayed((row.tag_database, row.tag_schema, row.tag_name)),
        row.domain,
        _displayed((row.ref_database, row.ref_schema, row.ref_name)),
        naming.display(row.ref_column) if row.ref_column else "",
        row.value,
    )
