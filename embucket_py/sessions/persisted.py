"""Sessions persisted in the metastore, so several servers (or Lambda invocations) share them.

Chosen over self-contained signed tokens because a session changes as it runs (USE, ALTER
SESSION, SET, open transactions): its state must live where every server can read the latest.

- Tokens stay random; the table keeps only HMAC-SHA256(secret, token), so reading the metastore
  does not let anyone act as a session.
- The session's state is pickled and sealed with an HMAC under the same shared secret: a server
  unpickles nothing it cannot verify came from a server holding the secret.
- Expiry is wall-clock time (servers share it, unlike monotonic clocks).
- Each server keeps one Session object per session id (its lock serialises that server's
  statements); it is refreshed from the table whenever another server saved a newer version.
"""

from __future__ import annotations

import hashlib
import hmac
import pickle
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

import sqlalchemy as sa

from embucket_py.errors import MasterTokenExpired, SessionGone, SessionTokenExpired
from embucket_py.sessions.session import Session
from embucket_py.sessions.store import SessionStore

T = TypeVar("T")

_meta = sa.MetaData()
sessions_table = sa.Table(
    "embucket_sessions",
    _meta,
    sa.Column("id", sa.BigInteger, primary_key=True),
    sa.Column("token_hash", sa.String(64), nullable=False, index=True),
    sa.Column("previous_hash", sa.String(64), index=True),
    sa.Column("token_expires", sa.Float, nullable=False),
    sa.Column("master_hash", sa.String(64), nullable=False, index=True),
    sa.Column("master_expires", sa.Float, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("state", sa.LargeBinary, nullable=False),
)

_GONE = "Session no longer exists.  New login required to access the service."


def seal(secret: str, value: object) -> bytes:
    """Pickles a value with an HMAC-SHA256 of the bytes in front (32 bytes)."""
    body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return hmac.new(secret.encode(), body, hashlib.sha256).digest() + body


def unseal(secret: str, blob: bytes) -> Any:
    """The value `seal` stored. Raises ValueError if the blob was not sealed under this secret."""
    mac, body = bytes(blob[:32]), bytes(blob[32:])
    if not hmac.compare_digest(mac, hmac.new(secret.encode(), body, hashlib.sha256).digest()):
        raise ValueError("sealed value does not match the shared secret")
    return pickle.loads(body)  # verified above: written by a server holding the secret


def _state(session: Session) -> dict[str, Any]:
    return {f.name: getattr(session, f.name) for f in fields(Session) if f.name != "lock"}


class PersistedSessionStore(SessionStore):
    """SessionStore over a SQL table shared by every server of one metastore."""

    def __init__(self, engine: sa.Engine, secret: str, session_ttl: int, master_ttl: int) -> None:
        super().__init__(session_ttl, master_ttl)
        self.engine = engine
        self.secret = secret
        _meta.create_all(engine)
        self._local: dict[int, tuple[int, Session]] = {}  # id -> (version, session)
        self._local_lock = threading.Lock()

    def open_sessions(self) -> list[Session]:
        """The sessions this server has loaded (those of other servers are theirs to change)."""
        with self._local_lock:
            return [session for _, session in self._local.values()]

    def _hash(self, token: str) -> str:
        return hmac.new(self.secret.encode(), token.encode(), hashlib.sha256).hexdigest()

    def open(self, session: Session) -> tuple[str, str]:
        now = time.time()
        token, master = "ST-" + secrets.token_urlsafe(32), "MT-" + secrets.token_urlsafe(32)
        with self.engine.begin() as conn:
            conn.execute(
                sessions_table.insert().values(
                    id=session.id,
                    token_hash=self._hash(token),
                    previous_hash=None,
                    token_expires=now + self.session_ttl,
                    master_hash=self._hash(master),
                    master_expires=now + self.master_ttl,
                    version=1,
                    state=seal(self.secret, _state(session)),
                )
            )
        with self._local_lock:
            self._local[session.id] = (1, session)
        return token, master

    def _row(self, token: str) -> Any:
        digest = self._hash(token)
        t = sessions_table
        with self.engine.connect() as conn:
            query = sa.select(t).where(sa.or_(t.c.token_hash == digest, t.c.previous_hash == digest))
            return conn.execute(query).first()

    def _session(self, row: Any) -> Session:
        """This server's Session object for a row, brought up to the row's version."""
        with self._local_lock:
            cached = self._local.get(row.id)
            if cached is not None and cached[0] == row.version:
                return cached[1]
            state = unseal(self.secret, row.state)
            if cached is None:
                session = Session(**state)
            else:
                session = cached[1]
                for name, value in state.items():
                    setattr(session, name, value)
            self._local[row.id] = (row.version, session)
            return session

    def get(self, token: str) -> Session:
        row = self._row(token)
        if row is None:
            raise SessionGone(_GONE)
        now = time.time()
        if now > row.master_expires:
            self.close(token)
            raise SessionGone(_GONE)
        if now > row.token_expires or row.token_hash != self._hash(token):
            raise SessionTokenExpired("Session token has expired.")
        return self._session(row)

    def peek(self, token: str) -> Session | None:
        row = self._row(token)
        return self._session(row) if row is not None else None

    def renew(self, master: str, old_token: str) -> tuple[str, Session]:
        t = sessions_table
        with self.engine.begin() as conn:
            row = conn.execute(sa.select(t).where(t.c.master_hash == self._hash(master))).first()
            if row is None or time.time() > row.master_expires:
                raise MasterTokenExpired("Master token has expired.")
            if old_token and self._hash(old_token) == row.previous_hash:
                # A concurrent renewal already replaced this token: the caller cannot learn the new
                # token from a hash, so it gets a fresh one that supersedes both.
                pass
            elif old_token and self._hash(old_token) != row.token_hash:
                raise SessionGone(_GONE)
            token = "ST-" + secrets.token_urlsafe(32)
            conn.execute(
                t.update()
                .where(t.c.id == row.id)
                .values(
                    previous_hash=row.token_hash,
                    token_hash=self._hash(token),
                    token_expires=time.time() + self.session_ttl,
                )
            )
        return token, self._session(row)

    def close(self, token: str) -> Session | None:
        row = self._row(token)
        if row is None:
            return None
        with self.engine.begin() as conn:
            conn.execute(sessions_table.delete().where(sessions_table.c.id == row.id))
        with self._local_lock:
            cached = self._local.pop(row.id, None)
        return cached[1] if cached else None

    def save(self, session: Session) -> None:
        """Writes a session's state back after a statement changed it (last writer wins)."""
        t = sessions_table
        with self.engine.begin() as conn:
            version = conn.execute(sa.select(t.c.version).where(t.c.id == session.id)).scalar()
            if version is None:
                return  # closed meanwhile
            conn.execute(
                t.update()
                .where(t.c.id == session.id)
                .values(version=version + 1, state=seal(self.secret, _state(session)))
            )
        with self._local_lock:
            self._local[session.id] = (version + 1, session)

    def after(self, session: Session, work: Callable[..., T]) -> Callable[..., T]:
        """`work` followed by saving the session, whatever the outcome."""

        def run(*args: Any) -> T:
            try:
                return work(*args)
            finally:
                self.save(session)

        return run
