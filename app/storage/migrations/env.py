"""Alembic's entry point for the store's migrations. Earnings Desk runs them itself at start-up
(app.storage.migrate.upgrade, with the connection in `config.attributes`); the `alembic`
command works too, given `sqlalchemy.url`."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from app.storage.tables import metadata

config = context.config
connection = config.attributes.get("connection")

if connection is not None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    engine = engine_from_config(
        config.get_section(config.config_ini_section) or {},
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
