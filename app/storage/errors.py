"""Which failures are outages of the storage or the queue (to wait out and retry from the
checkpoint) rather than failures of a run."""

from __future__ import annotations


def is_infra_error(exc: BaseException) -> bool:
    """A lost connection to the database or the queue, also when wrapped (raise ... from)."""
    import psycopg
    import psycopg_pool
    import sqlalchemy.exc
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    infra = (
        psycopg.OperationalError,
        psycopg.InterfaceError,
        psycopg_pool.PoolTimeout,
        sqlalchemy.exc.OperationalError,
        sqlalchemy.exc.InterfaceError,
        sqlalchemy.exc.DisconnectionError,
        RedisConnectionError,
        RedisTimeoutError,
    )
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, infra):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
