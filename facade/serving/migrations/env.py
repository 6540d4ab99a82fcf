"""Alembic environment: runs on the connection Facade hands it (see facade/serving/migrate.py)."""

from alembic import context

from facade.kit.db import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
