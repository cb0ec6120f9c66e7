"""The role registry (nodes/registry.py, a list kept by hand) holds every role a node module
declares: a module that declares ROLES and is missing from the list fails here."""

from __future__ import annotations

import importlib
import pkgutil

import nodes
from nodes.registry import ROLES


def test_every_node_modules_roles_are_in_the_registry() -> None:
    declared: dict[str, set[str]] = {}
    for info in pkgutil.iter_modules(nodes.__path__):
        if info.name == "registry":
            continue
        module = importlib.import_module(f"nodes.{info.name}")
        roles = getattr(module, "ROLES", None)
        if isinstance(roles, dict):
            declared[info.name] = set(roles)
    assert declared, "no node module declares ROLES"
    missing = {name: sorted(r - set(ROLES)) for name, r in declared.items() if r - set(ROLES)}
    assert not missing, f"roles not in nodes/registry.py: {missing}"
