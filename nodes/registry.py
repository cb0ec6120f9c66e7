"""Every model role the nodes declare (each next to its code), in one registry that the
model factory reads (and checks the roles the settings name against)."""

from __future__ import annotations

from core.roles import Role, merge
from nodes import (
    adversarial,
    conversation,
    debate,
    factcheck,
    parsing,
    specialists,
    synthesis,
    writer_feedback,
)

ROLES: dict[str, Role] = merge(
    m.ROLES.values()
    for m in (
        specialists, synthesis, debate, parsing, conversation, writer_feedback, adversarial,
        factcheck,
    )
)  # fmt: skip
