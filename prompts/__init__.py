"""Prompt files and their renderer.

Each prompt is `prompts/<pipeline>/<role>.md.j2`; it extends `_base.md.j2` (directly or through
a shared layout) and fills a `system` block (professional identity) and a `user` block (the
task). Rendering happens when a node runs (never at import) with strict undefined variables, so
a missing slot is an error, not an empty string.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jinja2
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

PROMPTS_DIR = Path(__file__).parent


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user: str

    def messages(self) -> list[BaseMessage]:
        return [SystemMessage(content=self.system), HumanMessage(content=self.user)]


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPTS_DIR)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def available() -> list[str]:
    """Every renderable prompt name (layouts starting with `_` excluded)."""
    return sorted(
        str(p.relative_to(PROMPTS_DIR)).removesuffix(".md.j2")
        for p in PROMPTS_DIR.rglob("*.md.j2")
        if not p.name.startswith("_")
    )


_SPLIT = "\x00"  # transcripts containing NUL are refused, so this cannot come from input
_MATERIAL = "\x01"  # the end of the shared material (control characters are refused too)
Layout = Literal["desk", "paper"]


def render(name: str, layout: Layout = "desk", /, **variables: Any) -> Prompt:
    """Render `prompts/<name>.md.j2`, which extends `_base.md.j2` and fills `system` and `user`.

    `desk`: the shared material (house rules, the call's identity, call facts, the call, the
    financials) and the role are the system message, the task the user message, so the part
    every role shares comes first. `paper` (the papers' layout): the role alone is the system
    message; the material, then the task, the user message (the tasks speak of the material
    "above")."""
    for reserved in ("SPLIT", "MATERIAL", "profile"):
        if reserved in variables:
            raise KeyError(f"{reserved} is reserved by the prompt renderer")
    text = (
        _env()
        .get_template(f"{name}.md.j2")
        .render(SPLIT=_SPLIT, MATERIAL=_MATERIAL, profile=layout, **variables)
    )
    parts = text.split(_SPLIT)
    if len(parts) != 2 or parts[0].count(_MATERIAL) != 1:
        raise ValueError(f"prompt {name!r} must extend _base.md.j2 (one system and one user block)")
    material, role = parts[0].split(_MATERIAL)
    if layout == "paper":
        system, user = _tidy(role), _tidy(material + "\n\n" + parts[1])
    else:
        system, user = _tidy(material + role), _tidy(parts[1])
    if not system or not user:
        raise ValueError(f"prompt {name!r} rendered an empty system or user part")
    return Prompt(name=name, system=system, user=user)


def _tidy(text: str) -> str:
    lines = [ln.rstrip() for ln in text.strip().splitlines()]
    out: list[str] = []
    for ln in lines:
        if not ln and out and not out[-1]:
            continue
        out.append(ln)
    return "\n".join(out)
