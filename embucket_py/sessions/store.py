"""SessionStore: session and master tokens -> Session, with expiry and renewal."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from embucket_py.errors import MasterTokenExpired, SessionGone, SessionTokenExpired
from embucket_py.sessions.session import Session

T = TypeVar("T")


@dataclass
class _Tokens:
    session: Session
    token: str
    token_expires: float
    master: str
    master_expires: float
    previous: str = ""  # the token the last renewal replaced


class SessionStore:
    """In-memory token store. Tokens are random; a token maps to exactly one session."""

    def __init__(self, session_ttl: int, master_ttl: int) -> None:
        self.session_ttl = session_ttl
        self.master_ttl = master_ttl
        self._by_token: dict[str, _Tokens] = {}
        self._by_master: dict[str, _Tokens] = {}
        self._lock = threading.Lock()

    def open(self, session: Session) -> tuple[str, str]:
        now = time.monotonic()
        entry = _Tokens(
            session,
            "ST-" + secrets.token_urlsafe(32),
            now + self.session_ttl,
            "MT-" + secrets.token_urlsafe(32),
            now + self.master_ttl,
        )
        with self._lock:
            self._by_token[entry.token] = entry
            self._by_master[entry.master] = entry
        return entry.token, entry.master

    def open_sessions(self) -> list[Session]:
        """Every session this store holds, once each."""
        with self._lock:
            return list({id(e.session): e.session for e in self._by_token.values()}.values())

    def get(self, token: str) -> Session:
        """The session of a session token.

        Raises:
            SessionTokenExpired: the token expired but its master token can renew it.
            SessionGone: no such session (never existed, closed, or master token expired).
        """
        with self._lock:
            entry = self._by_token.get(token)
        if entry is None:
            raise SessionGone("Session no longer exists.  New login required to access the service.")
        now = time.monotonic()
        if now > entry.master_expires:
            self.close(token)
            raise SessionGone("Session no longer exists.  New login required to access the service.")
        if now > entry.token_expires or token != entry.token:
            # A replaced token stays renewable: concurrent calls may still carry it.
            raise SessionTokenExpired("Session token has expired.")
        return entry.session

    def peek(self, token: str) -> Session | None:
        """The session of a token, expired or not (to answer in the client's dialect)."""
        with self._lock:
            entry = self._by_token.get(token)
        return entry.session if entry else None

    def renew(self, master: str, old_token: str) -> tuple[str, Session]:
        """Issues a new session token for the session of a master token."""
        with self._lock:
            entry = self._by_master.get(master)
            if entry is None or time.monotonic() > entry.master_expires:
                raise MasterTokenExpired("Master token has expired.")
            if old_token and old_token == entry.previous:
                # Concurrent calls (a query and telemetry) renewing the same expired token.
                return entry.token, entry.session
            if old_token and old_token != entry.token:
                raise SessionGone("Session no longer exists.  New login required to access the service.")
            self._by_token.pop(entry.previous, None)
            entry.previous = entry.token
            entry.token = "ST-" + secrets.token_urlsafe(32)
            entry.token_expires = time.monotonic() + self.session_ttl
            self._by_token[entry.token] = entry
            return entry.token, entry.session

    def close(self, token: str) -> Session | None:
        with self._lock:
            entry = self._by_token.pop(token, None)
            if entry is not None:
                self._by_token.pop(entry.token, None)
                self._by_token.pop(entry.previous, None)
                self._by_master.pop(entry.master, None)
        return entry.session if entry else None

    def heartbeat(self, token: str) -> None:
        """Checks the token (raising like get() does); sessions live as long as their master token."""
        self.get(token)

    def save(self, session: Session) -> None:
        """Persists a session's changed state (in memory there is nothing to do)."""

    def after(self, session: Session, work: Callable[..., T]) -> Callable[..., T]:
        """Wraps a statement's work so the session is saved when it ends (here: unchanged)."""
        return work
