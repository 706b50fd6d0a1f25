"""External volumes: named S3-compatible storage locations a database keeps its tables on.

https://docs.snowflake.com/en/sql-reference/sql/create-external-volume
A volume is recorded in the metastore with its credentials (which never leave this module in
anything shown: `public()` omits them, reprs hide them). Its bucket's credentials are registered
with `storage` when the volume is created and when any server starts, so pyiceberg writes and
DataFusion reads reach it like the default warehouse.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlparse

import sqlalchemy as sa

from embucket_py.catalog import storage
from embucket_py.errors import SqlCompilationError, Unsupported, already_exists, object_not_found

_meta = sa.MetaData()
volumes_table = sa.Table(
    "embucket_external_volumes",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("created_on", sa.DateTime, nullable=False),
    sa.Column("allow_writes", sa.Boolean, nullable=False),
    sa.Column("comment", sa.Text),
    sa.Column("locations", sa.Text, nullable=False),  # JSON, with credentials
)

_PROVIDERS = ("S3", "S3COMPAT")
_LOCATION_KEYS = {
    "NAME",
    "STORAGE_PROVIDER",
    "STORAGE_BASE_URL",
    "STORAGE_ENDPOINT",
    "STORAGE_AWS_REGION",
    "CREDENTIALS",
}
_CREDENTIAL_KEYS = {"AWS_KEY_ID", "AWS_SECRET_KEY", "AWS_TOKEN"}


@dataclass(frozen=True)
class StorageLocation:
    name: str
    provider: str
    base_url: str  # s3://bucket/path
    endpoint: str = ""  # http(s)://host:port; empty means AWS
    region: str = "us-east-1"
    key_id: str = field(default="", repr=False)
    secret_key: str = field(default="", repr=False)
    token: str = field(default="", repr=False)

    @property
    def bucket(self) -> str:
        return storage.bucket_of(self.base_url)

    def store(self) -> storage.S3Store:
        return storage.S3Store(
            self.bucket, self.endpoint, self.region, self.key_id, self.secret_key, self.token
        )

    def public(self) -> dict[str, str]:
        """What DESCRIBE shows: everything but the secret key and token."""
        shown = {
            "NAME": self.name,
            "STORAGE_PROVIDER": self.provider,
            "STORAGE_BASE_URL": self.base_url,
            "STORAGE_ENDPOINT": self.endpoint,
            "STORAGE_AWS_REGION": self.region,
        }
        if self.key_id:
            shown["STORAGE_AWS_KEY_ID"] = self.key_id
        return shown

    def stored(self) -> dict[str, str]:
        return {**self.public(), "AWS_SECRET_KEY": self.secret_key, "AWS_TOKEN": self.token}


@dataclass(frozen=True)
class Volume:
    name: str
    created_on: datetime
    allow_writes: bool
    comment: str | None
    locations: list[StorageLocation]

    @property
    def active(self) -> StorageLocation:
        """The location tables are written to (Snowflake's active location: the first one)."""
        return self.locations[0]


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise SqlCompilationError(f"{what} expects a string value.")
    return value


def location_of(spec: object) -> StorageLocation:
    """One STORAGE_LOCATIONS entry, validated.

    Raises:
        Unsupported: a provider other than S3 / S3COMPAT, or an option not implemented.
        SqlCompilationError: a required option is missing or malformed.
    """
    if not isinstance(spec, dict):
        raise SqlCompilationError("STORAGE_LOCATIONS expects a list of locations: ((NAME = '...' ...)).")
    unknown = set(spec) - _LOCATION_KEYS
    if unknown:
        raise Unsupported(f"Storage location option {sorted(unknown)[0]} is not supported.")
    for required in ("NAME", "STORAGE_PROVIDER", "STORAGE_BASE_URL"):
        if required not in spec:
            raise SqlCompilationError(f"Missing option(s): [{required}]")
    provider = _text(spec["STORAGE_PROVIDER"], "STORAGE_PROVIDER").upper()
    if provider not in _PROVIDERS:
        raise Unsupported(f"STORAGE_PROVIDER '{provider}' is not supported; use S3 or S3COMPAT.")
    base_url = storage.normalize(_text(spec["STORAGE_BASE_URL"], "STORAGE_BASE_URL"))
    parsed = urlparse(base_url)
    if parsed.scheme != "s3" or not parsed.netloc:
        raise SqlCompilationError(f"Invalid STORAGE_BASE_URL '{base_url}': expected s3://bucket/path.")
    endpoint = _text(spec.get("STORAGE_ENDPOINT", ""), "STORAGE_ENDPOINT")
    if endpoint and "://" not in endpoint:
        endpoint = f"https://{endpoint}"  # Snowflake's S3COMPAT endpoints are host names
    credentials = spec.get("CREDENTIALS", {})
    if not isinstance(credentials, dict):
        raise SqlCompilationError(
            "CREDENTIALS expects a list of options: (AWS_KEY_ID = '...' AWS_SECRET_KEY = '...')."
        )
    unknown = set(credentials) - _CREDENTIAL_KEYS
    if unknown:
        raise Unsupported(f"Credential option {sorted(unknown)[0]} is not supported.")
    return StorageLocation(
        name=_text(spec["NAME"], "NAME"),
        provider=provider,
        base_url=base_url.rstrip("/"),
        endpoint=endpoint.rstrip("/"),
        region=_text(spec.get("STORAGE_AWS_REGION", "us-east-1"), "STORAGE_AWS_REGION"),
        key_id=_text(credentials.get("AWS_KEY_ID", ""), "AWS_KEY_ID"),
        secret_key=_text(credentials.get("AWS_SECRET_KEY", ""), "AWS_SECRET_KEY"),
        token=_text(credentials.get("AWS_TOKEN", ""), "AWS_TOKEN"),
    )


def _from_row(row: sa.Row) -> Volume:
    created = row.created_on if row.created_on.tzinfo else row.created_on.replace(tzinfo=UTC)
    locations = [
        StorageLocation(
            name=s["NAME"],
            provider=s["STORAGE_PROVIDER"],
            base_url=s["STORAGE_BASE_URL"],
            endpoint=s["STORAGE_ENDPOINT"],
            region=s["STORAGE_AWS_REGION"],
            key_id=s.get("STORAGE_AWS_KEY_ID", ""),
            secret_key=s["AWS_SECRET_KEY"],
            token=s["AWS_TOKEN"],
        )
        for s in json.loads(row.locations)
    ]
    return Volume(row.name, created, row.allow_writes, row.comment, locations)


class Volumes:
    """The external volumes of one metastore."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        _meta.create_all(engine)

    def get(self, name: str) -> Volume | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(volumes_table).where(volumes_table.c.name == name)).first()
        return _from_row(row) if row is not None else None

    def require(self, name: str) -> Volume:
        volume = self.get(name)
        if volume is None:
            raise object_not_found("External volume", name)
        return volume

    def all(self) -> list[Volume]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(volumes_table).order_by(volumes_table.c.name)).all()
        return [_from_row(r) for r in rows]

    def create(self, volume: Volume, *, replace: bool = False, if_not_exists: bool = False) -> bool:
        """Records a volume and makes its buckets reachable. False if it existed (IF NOT EXISTS)."""
        with self.engine.begin() as conn:
            exists = conn.execute(
                sa.select(volumes_table.c.name).where(volumes_table.c.name == volume.name)
            ).first()
            if exists is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise already_exists("External volume", volume.name)
                conn.execute(volumes_table.delete().where(volumes_table.c.name == volume.name))
            conn.execute(
                volumes_table.insert().values(
                    name=volume.name,
                    created_on=volume.created_on,
                    allow_writes=volume.allow_writes,
                    comment=volume.comment,
                    locations=json.dumps([loc.stored() for loc in volume.locations]),
                )
            )
        register(volume)
        return True

    def drop(self, name: str, *, if_exists: bool = False) -> bool:
        with self.engine.begin() as conn:
            deleted = conn.execute(volumes_table.delete().where(volumes_table.c.name == name))
        if deleted.rowcount < 1:  # type: ignore[attr-defined]
            if if_exists:
                return False
            raise object_not_found("External volume", name)
        return True

    def register_all(self) -> None:
        """Registers every volume's buckets (a server starting on a metastore with volumes)."""
        for volume in self.all():
            register(volume)

    def warehouse(self, name: str) -> str:
        """The base URL new tables of a database on this volume go under (buckets registered)."""
        volume = self.require(name)
        register(volume)
        return volume.active.base_url


def register(volume: Volume) -> None:
    for location in volume.locations:
        storage.register(location.store())


def new_volume(name: str, properties: dict[str, object]) -> Volume:
    """A volume from CREATE EXTERNAL VOLUME's properties.

    Raises:
        Unsupported / SqlCompilationError: see `location_of`; an unknown volume option.
    """
    props = dict(properties)
    locations = props.pop("STORAGE_LOCATIONS", None)
    if not isinstance(locations, list) or not locations:
        raise SqlCompilationError("Missing option(s): [STORAGE_LOCATIONS]")
    allow_writes = str(props.pop("ALLOW_WRITES", "TRUE")).upper()
    if allow_writes != "TRUE":
        raise Unsupported("Read-only external volumes (ALLOW_WRITES = FALSE) are not supported.")
    comment = props.pop("COMMENT", None)
    if props:
        raise Unsupported(f"External volume option {sorted(props)[0]} is not supported.")
    parsed = [location_of(spec) for spec in locations]
    names = [loc.name for loc in parsed]
    if len(set(names)) != len(names):
        raise SqlCompilationError("Storage location names must be unique within an external volume.")
    return Volume(name, datetime.now(UTC), True, None if comment is None else str(comment), parsed)
