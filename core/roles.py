"""Model roles. Each node module declares the roles it asks models for, with their completion
budgets, next to its code (`ROLES = roles(Role(...), ...)`); `nodes.registry` gathers them and
the model factory reads that registry (and checks the roles the settings name), so a new role
is declared once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    """A role a node asks a model to play, and how many tokens it may write: `remote` for a
    capable hosted model, `local` for the bundled local model (sized so a whole run fits a
    2-core machine and every prompt its context)."""

    name: str
    remote: int
    local: int

    def budget(self, local: bool) -> int:
        return self.local if local else self.remote


def roles(*declared: Role) -> dict[str, Role]:
    """A module's role table by name (a name declared twice is a mistake)."""
    table: dict[str, Role] = {}
    for role in declared:
        if role.name in table:
            raise ValueError(f"role {role.name!r} declared twice")
        table[role.name] = role
    return table


def merge(tables: Iterable[Iterable[Role]]) -> dict[str, Role]:
    """One registry from several modules' tables; one name, one declaration."""
    return roles(*(role for table in tables for role in table))
