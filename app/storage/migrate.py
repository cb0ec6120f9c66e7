"""Bring a database to the newest schema with Alembic: the same migrations on SQLite and
PostgreSQL, run at start-up. On PostgreSQL they run inside one transaction holding an advisory
lock, so replicas starting together neither race nor apply a migration twice."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).with_name("migrations")
_LOCK_KEY = 0x4544455348  # "EDESH": the advisory lock migrations run under


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head() -> str:
    """The newest revision."""
    revision = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert revision is not None
    return revision


def current(conn: sa.Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def upgrade(sync_url: str) -> str | None:
    """Apply what the database lacks; returns the revision it was at before (None: new, or
    made before migrations)."""
    engine = sa.create_engine(sync_url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
            before = current(conn)
            cfg = alembic_config()
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
        return before
    finally:
        engine.dispose()
