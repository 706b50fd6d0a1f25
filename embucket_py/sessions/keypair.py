"""Key-pair (JWT) authentication: users' RSA public keys and the connector's RS256 login JWT.

https://docs.snowflake.com/en/user-guide/key-pair-auth
- `ALTER USER u SET RSA_PUBLIC_KEY = '<PEM body>'` (and RSA_PUBLIC_KEY_2, for rotation),
  `ALTER USER u UNSET RSA_PUBLIC_KEY[_2]`, `CREATE USER u ... RSA_PUBLIC_KEY = '...'` (and the
  other user statements on the same tables: a password set or changed, descriptive properties).
- The login JWT: header alg RS256; `iss` = ACCOUNT.USER.SHA256:<base64 SHA-256 of the DER
  SubjectPublicKeyInfo>, `sub` = ACCOUNT.USER, `iat`/`exp` (at most an hour apart).
Keys live in their own metastore table, so they are shared by every server of one metastore.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from embucket_py.errors import (
    AuthError,
    SnowflakeError,
    SqlCompilationError,
    already_exists,
    object_not_found,
)

_meta = sa.MetaData()
keys_table = sa.Table(
    "embucket_user_keys",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("rsa_public_key", sa.Text),
    sa.Column("rsa_public_key_2", sa.Text),
)

KEY_COLUMNS = ("RSA_PUBLIC_KEY", "RSA_PUBLIC_KEY_2")
_CLOCK_SKEW = 60  # seconds a client's clock may run ahead
_MAX_LIFETIME = 3600  # Snowflake accepts JWTs valid for at most one hour


class InvalidJwt(AuthError):
    code = 390144


def _invalid() -> InvalidJwt:
    return InvalidJwt("JWT token is invalid.")


def load_public_key(text: str) -> rsa.RSAPublicKey:
    """An RSA public key given as PEM, with or without its BEGIN/END lines.

    Raises:
        SqlCompilationError: not an RSA public key.
    """
    body = re.sub(r"-----(BEGIN|END) PUBLIC KEY-----|\s", "", text)
    try:
        key = serialization.load_der_public_key(base64.b64decode(body, validate=True))
    except (ValueError, binascii.Error, TypeError):
        raise SqlCompilationError("Invalid RSA public key: the key is not a valid public key.") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise SqlCompilationError("Invalid RSA public key: the key is not an RSA key.")
    return key


def fingerprint(key: rsa.RSAPublicKey) -> str:
    """SHA256:<base64> over the DER SubjectPublicKeyInfo, as DESC USER shows and JWTs name it."""
    der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return "SHA256:" + base64.b64encode(hashlib.sha256(der).digest()).decode()


def _b64url(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


@dataclass(frozen=True)
class Jwt:
    header: dict[str, Any]
    claims: dict[str, Any]
    signed: bytes
    signature: bytes


def parse_jwt(token: str) -> Jwt:
    """The parts of a compact JWS. Raises InvalidJwt when it is not one."""
    parts = token.split(".")
    if len(parts) != 3:
        raise _invalid()
    try:
        header, claims = json.loads(_b64url(parts[0])), json.loads(_b64url(parts[1]))
        signature = _b64url(parts[2])
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise _invalid() from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise _invalid()
    return Jwt(header, claims, f"{parts[0]}.{parts[1]}".encode(), signature)


class UserKeys:
    """The RSA public keys of users, and verification of login JWTs against them."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        _meta.create_all(engine)

    def forget(self, user: str) -> None:
        """A dropped user's keys go with it."""
        with self.engine.begin() as conn:
            conn.execute(keys_table.delete().where(keys_table.c.name == user.upper()))

    def keys(self, user: str) -> list[str]:
        t = keys_table
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(t).where(t.c.name == user.upper())).first()
        return [k for k in (row.rsa_public_key, row.rsa_public_key_2) if k] if row else []

    def set_key(self, user: str, column: str, text: str | None) -> None:
        """Sets (validating it) or, with None, clears one of the two key slots."""
        if text is not None:
            load_public_key(text)
        t = keys_table
        field = column.lower()
        with self.engine.begin() as conn:
            exists = conn.execute(sa.select(t.c.name).where(t.c.name == user.upper())).first()
            if exists:
                conn.execute(t.update().where(t.c.name == user.upper()).values({field: text}))
            else:
                conn.execute(t.insert().values({"name": user.upper(), field: text}))

    def verify(self, account: str, user: str, token: str, now: float | None = None) -> None:
        """Checks a login JWT of `user`.

        Raises:
            InvalidJwt: malformed, wrong algorithm, subject or issuer, expired, or a bad signature.
        """
        jwt = parse_jwt(token)
        now = time.time() if now is None else now
        claims = jwt.claims
        if jwt.header.get("alg") != "RS256":
            raise _invalid()
        subject = f"{account.split('.')[0]}.{user}".upper()
        if str(claims.get("sub", "")).upper() != subject:
            raise _invalid()
        issuer = str(claims.get("iss", ""))
        prefix, _, print_ = issuer.rpartition(".")
        if prefix.upper() != subject or not print_.startswith("SHA256:"):
            raise _invalid()
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, int | float) or not isinstance(exp, int | float):
            raise _invalid()
        if exp <= now or iat > now + _CLOCK_SKEW or exp - iat > _MAX_LIFETIME:
            raise InvalidJwt("JWT token is invalid: it has expired or is not yet valid.")
        for text in self.keys(user):
            key = load_public_key(text)
            if fingerprint(key) != print_:
                continue
            try:
                key.verify(jwt.signature, jwt.signed, padding.PKCS1v15(), hashes.SHA256())
            except InvalidSignature:
                raise _invalid() from None
            return
        raise _invalid()


# --- statements ------------------------------------------------------------------------------

_NAME = r'(?P<name>"(?:[^"]|"")+"|[A-Za-z_][\w$]*)'
_ALTER = re.compile(
    rf"\s*ALTER\s+USER\s+(?:IF\s+EXISTS\s+)?{_NAME}\s+(?P<verb>SET|UNSET)\s+(?P<rest>.*)", re.I | re.S
)
_CREATE = re.compile(
    rf"\s*CREATE\s+(?P<replace>OR\s+REPLACE\s+)?USER\s+(?P<ine>IF\s+NOT\s+EXISTS\s+)?{_NAME}(?P<rest>.*)",
    re.I | re.S,
)
_PROPERTY = re.compile(r"\s*(?P<key>\w+)\s*=\s*(?:'(?P<text>(?:[^']|'')*)'|(?P<word>[^\s']+))\s*,?", re.S)


def _user_name(raw: str) -> str:
    return raw[1:-1].replace('""', '"') if raw.startswith('"') else raw.upper()


def _properties(rest: str) -> dict[str, str]:
    """KEY = 'text' | KEY = word pairs; anything else is a syntax error."""
    found: dict[str, str] = {}
    position = 0
    rest = rest.rstrip().rstrip(";")
    while position < len(rest.rstrip()):
        match = _PROPERTY.match(rest, position)
        if match is None:
            raise SqlCompilationError(f"syntax error: unexpected '{rest[position:].strip()[:30]}'.")
        text = match.group("text")
        value = text.replace("''", "'") if text is not None else match.group("word")
        found[match.group("key").upper()] = value
        position = match.end()
    return found


@dataclass(frozen=True)
class UserStatement:
    """ALTER USER ... SET/UNSET RSA_PUBLIC_KEY[_2] | SET PASSWORD, or CREATE USER with a password
    and keys."""

    kind: str  # "ALTER" or "CREATE"
    user: str
    set_keys: dict[str, str | None]
    password: str | None = None
    default_role: str | None = None
    if_not_exists: bool = False
    or_replace: bool = False


# User properties taken and kept nowhere: names and e-mail are only descriptive, and a warehouse
# is a no-op here.
_DESCRIPTIVE = {
    "COMMENT",
    "LOGIN_NAME",
    "DISPLAY_NAME",
    "EMAIL",
    "FIRST_NAME",
    "LAST_NAME",
    "DEFAULT_WAREHOUSE",
}


def parse_user_statement(sql: str) -> UserStatement | None:
    """The statement when it is one this module runs; None for any other statement."""
    if match := _ALTER.fullmatch(sql):
        name, verb, rest = _user_name(match.group("name")), match.group("verb").upper(), match.group("rest")
        if verb == "UNSET":
            columns = [c.strip().upper() for c in rest.rstrip().rstrip(";").split(",")]
            if not columns or any(c not in KEY_COLUMNS for c in columns):
                return None
            return UserStatement("ALTER", name, dict.fromkeys(columns))
        props = _properties(rest)
        if not props or any(k not in {*KEY_COLUMNS, "PASSWORD", *_DESCRIPTIVE} for k in props):
            return None  # other user properties belong to access control
        keys = {k: v for k, v in props.items() if k in KEY_COLUMNS}
        return UserStatement("ALTER", name, keys, password=props.get("PASSWORD"))
    if match := _CREATE.fullmatch(sql):
        props = _properties(match.group("rest"))
        unknown = set(props) - {*KEY_COLUMNS, *_DESCRIPTIVE, "PASSWORD", "DEFAULT_ROLE"}
        if unknown:
            raise SnowflakeError(
                f"CREATE USER property {sorted(unknown)[0]} is not supported yet.", code=2, sqlstate="0A000"
            )
        keys: dict[str, str | None] = {k: v for k, v in props.items() if k in KEY_COLUMNS}
        return UserStatement(
            "CREATE",
            _user_name(match.group("name")),
            keys,
            password=props.get("PASSWORD"),
            default_role=_role_name(props.get("DEFAULT_ROLE")),
            if_not_exists=bool(match.group("ine")),
            or_replace=bool(match.group("replace")),
        )
    return None


def _role_name(value: str | None) -> str | None:
    if not value:
        return None
    return value[1:-1] if value.startswith('"') and value.endswith('"') else value.upper()


def run_user_statement(engine: sa.Engine, statement: UserStatement) -> str:
    """Runs the statement on the users and keys tables; returns Snowflake's status message."""
    from embucket_py.catalog.metastore import hash_password, users_table

    t = users_table
    with engine.begin() as conn:
        exists = conn.execute(sa.select(t.c.name).where(t.c.name == statement.user)).first() is not None
        if statement.kind == "ALTER" and not exists:
            raise object_not_found("User", statement.user)
        if statement.kind == "ALTER" and statement.password is not None:
            digest = hash_password(statement.password)
            conn.execute(t.update().where(t.c.name == statement.user).values(password_hash=digest))
        if statement.kind == "CREATE":
            if exists and statement.if_not_exists:
                return f"{statement.user} already exists, statement succeeded."
            if exists and not statement.or_replace:
                raise already_exists("User", statement.user)
            for text in statement.set_keys.values():
                if text is not None:
                    load_public_key(text)
            # A user with only a key pair gets an unusable password hash.
            digest = hash_password(statement.password) if statement.password else "none$$"
            if exists:
                conn.execute(t.update().where(t.c.name == statement.user).values(password_hash=digest))
            else:
                row = {"name": statement.user, "password_hash": digest, "created_on": datetime.now(UTC)}
                conn.execute(t.insert().values(row))
    keys = UserKeys(engine)
    if statement.kind == "CREATE":
        for column in KEY_COLUMNS:
            keys.set_key(statement.user, column, statement.set_keys.get(column))
        return f"User {statement.user} successfully created."
    for column, text in statement.set_keys.items():
        keys.set_key(statement.user, column, text)
    return "Statement executed successfully."
