"""Answers computed once per `call_facts`: the key figures and the guidance walk the same
sentences, and each sentence is asked the same questions several times (is it forward-looking,
its figures, metric phrases and period words). Within `per_call()` a `memoized` function answers
a repeated question from the call's memo; outside it (and in the next call) it computes afresh,
so nothing carries from one call to the next and a benchmark that reads the same call twice
pays twice. Lists, dicts and sets are handed out as copies: a caller may change its own."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_memo: ContextVar[dict[Any, Any] | None] = ContextVar("edesk_facts_memo", default=None)


@contextmanager
def per_call() -> Iterator[None]:
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def _copy(value: Any) -> Any:
    if isinstance(value, list | dict | set):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    return value


def memoized(fn: Callable[P, T]) -> Callable[P, T]:
    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        memo = _memo.get()
        if memo is None:
            return fn(*args, **kwargs)
        key = (fn, args, tuple(sorted(kwargs.items())))
        try:
            found = memo[key]
        except KeyError:
            found = memo[key] = fn(*args, **kwargs)
        return _copy(found)  # type: ignore[no-any-return]

    return wrapper


def remembered(key: Any, compute: Callable[[], T]) -> T:
    """`compute()`'s answer under `key`, once per call (computed every time outside one). The
    answer is kept as it is: the caller copies what it hands out."""
    memo = _memo.get()
    if memo is None:
        return compute()
    try:
        return memo[key]  # type: ignore[no-any-return]
    except KeyError:
        memo[key] = found = compute()
        return found


class Same:
    """An object as part of a key by identity, kept alive by the key (so its id is never another
    object's while the memo holds it): for values that are not hashable."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.value is self.value
