"""Failed-login rate limiting per user name, kept in the metastore so every server shares it.

After `threshold` consecutive failures a name is locked for 1 s, then 2 s, 4 s, ... up to
`max_lock` seconds (Snowflake locks for 15 minutes after 5 failures). A locked name is refused
whatever the password, and names that do not exist are counted too, so the answers do not
reveal which users exist. A successful login clears the count.
"""

from __future__ import annotations

import time

import sqlalchemy as sa

_meta = sa.MetaData()
failures_table = sa.Table(
    "embucket_login_failures",
    _meta,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("locked_until", sa.Float, nullable=False),
)


class LoginLimiter:
    def __init__(self, engine: sa.Engine, threshold: int = 5, max_lock: float = 900.0) -> None:
        self.engine = engine
        self.threshold = max(threshold, 1)
        self.max_lock = max_lock
        _meta.create_all(engine)

    def locked_for(self, name: str) -> float:
        """Seconds the name stays locked (0 when it may try to log in)."""
        t = failures_table
        with self.engine.connect() as conn:
            until = conn.execute(sa.select(t.c.locked_until).where(t.c.name == name.upper())).scalar()
        return max((until or 0.0) - time.time(), 0.0)

    def failed(self, name: str) -> None:
        try:
            self._count_failure(name)
        except sa.exc.IntegrityError:  # a concurrent first failure inserted the row: count again
            self._count_failure(name)

    def _count_failure(self, name: str) -> None:
        t = failures_table
        key = name.upper()
        with self.engine.begin() as conn:
            count = conn.execute(sa.select(t.c.failures).where(t.c.name == key)).scalar()
            failures = (count or 0) + 1
            lock = 0.0
            if failures >= self.threshold:
                lock = min(2.0 ** (failures - self.threshold), self.max_lock)
            values = {"failures": failures, "locked_until": time.time() + lock if lock else 0.0}
            if count is None:
                conn.execute(t.insert().values(name=key, **values))
            else:
                conn.execute(t.update().where(t.c.name == key).values(**values))

    def succeeded(self, name: str) -> None:
        t = failures_table
        with self.engine.connect() as conn:  # most logins have nothing to clear: read, not write
            if conn.execute(sa.select(t.c.name).where(t.c.name == name.upper())).first() is None:
                return
        with self.engine.begin() as conn:
            conn.execute(failures_table.delete().where(failures_table.c.name == name.upper()))
