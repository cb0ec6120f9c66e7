"""The configuration reference, generated from the code so it cannot drift: the process settings
(`app.settings.Settings`), the run options (`core.options.RunOptions`, with their `analyze` flags
from `app.cli.options`) and the model roles (`nodes.registry.ROLES`), rendered into the marked
blocks of docs/configuration.md. `tests/docs/test_config_docs.py` fails when they disagree.

    .venv/bin/python -m scripts.gen_config_docs          # rewrite the blocks
    .venv/bin/python -m scripts.gen_config_docs --check  # exit 1 if the page is stale
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import types
from enum import Enum
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo

import nodes
from app.cli.options import flag_of
from app.settings import Settings
from core.options import RunOptions, is_comma_list, surface
from nodes.registry import ROLES
from scripts.pages import write_or_check

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
COMMAND = ".venv/bin/python -m scripts.gen_config_docs"
PREFIX = Settings.model_config.get("env_prefix", "")


def type_name(annotation: Any) -> str:
    """A field's type as a reader writes it: `int`, `"a" | "b"`, `list of "x" | "y"`."""
    origin = get_origin(annotation)
    if origin is Literal:
        return " \\| ".join(f'"{a}"' for a in get_args(annotation))
    if origin in (Union, types.UnionType):
        args = get_args(annotation)
        shown = [type_name(a) for a in args if a is not type(None)]
        return " \\| ".join(shown) + (" or none" if type(None) in args else "")
    if origin is tuple:
        return f"list of {type_name(get_args(annotation)[0])}"
    if origin is dict:
        key, value = get_args(annotation)
        return f"JSON object {type_name(key)} -> {type_name(value)}"
    if origin is list:
        return f"list of {type_name(get_args(annotation)[0])}"
    if get_origin(annotation) is not None and get_args(annotation):  # Annotated[...]
        return type_name(get_args(annotation)[0])
    if isinstance(annotation, type):
        return {"SecretStr": "secret", "Path": "path"}.get(annotation.__name__, annotation.__name__)
    return str(annotation)


def field_type(field: FieldInfo) -> str:
    """The field's type; a list read from `a,b,c` (`core.options.CommaList`) says so."""
    shown = type_name(field.annotation)
    return f"comma-separated {shown}" if is_comma_list(field) else shown


def default_text(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "none"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, Path) and not value.is_absolute():
        return f"`./{value}`"
    if value == ():
        return "empty"
    if isinstance(value, tuple):
        return "`" + ",".join(str(v) for v in value) + "`"
    if isinstance(value, str) and value == "":
        return "empty"
    if isinstance(value, dict) and not value:
        return "`{}`"
    return f"`{value}`"


def bounds_text(field: FieldInfo) -> str:
    """The field's declared bounds (validators with cross-field rules are not listed here)."""
    parts = []
    for meta in field.metadata:
        for attr, sign in (
            ("ge", ">="),
            ("gt", ">"),
            ("le", "<="),
            ("lt", "<"),
            ("min_length", "at least"),
            ("max_length", "at most"),
        ):
            value = getattr(meta, attr, None)
            if value is not None:
                items = " items" if attr.endswith("_length") else ""
                parts.append(f"{sign} {value}{items}")
    return ", ".join(parts)


def cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")


def settings_table() -> str:
    rows = [
        "| Variable | Type | Default | Bounds | Meaning |",
        "|---|---|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        if name in RunOptions.model_fields:
            continue
        rows.append(
            f"| `{PREFIX}{name.upper()}` | {field_type(field)} | {default_text(field)} "
            f"| {bounds_text(field)} | {cell(field.description)} |"
        )
    return "\n".join(rows)


def options_table() -> str:
    rows = [
        "| Option | Setting | `analyze` flag | Type | Default | Bounds | Pipelines | Meaning |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, field in RunOptions.model_fields.items():
        meta = surface(field)
        flag = f"`{flag_of(name, field)}`" if meta.cli else "API only"
        pipelines = ", ".join(f"`{p}`" for p in meta.pipelines) or "all"
        rows.append(
            f"| `{name}` | `{PREFIX}{name.upper()}` | {flag} | {field_type(field)} "
            f"| {default_text(field)} | {bounds_text(field)} | {pipelines} "
            f"| {cell(field.description)} |"
        )
    return "\n".join(rows)


def role_modules() -> dict[str, str]:
    """Which node module declares each role (the module's own `ROLES`)."""
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(nodes.__path__, "nodes."):
        module = importlib.import_module(info.name)
        declared = getattr(module, "ROLES", None)
        if isinstance(declared, dict) and module.__name__ != "nodes.registry":
            for role in declared:
                found[role] = module.__name__.replace(".", "/") + ".py"
    return found


def roles_table() -> str:
    where = role_modules()
    rows = [
        "| Role | Declared in | Completion tokens, remote model | Completion tokens, local model |",
        "|---|---|---|---|",
    ]
    for name, role in ROLES.items():
        rows.append(f"| `{name}` | `{where.get(name, '?')}` | {role.remote} | {role.local} |")
    return "\n".join(rows)


BLOCKS = {"settings": settings_table, "run-options": options_table, "roles": roles_table}


def marker(name: str, end: bool = False) -> str:
    word = "END" if end else "BEGIN"
    return f"<!-- {word} GENERATED {name}: {COMMAND} -->"


def render(page: str) -> str:
    """`page` with every generated block replaced by what the code says now."""
    for name, build in BLOCKS.items():
        begin, end = marker(name), marker(name, end=True)
        pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.DOTALL)
        found = pattern.search(page)
        if not found:
            raise ValueError(f"{PAGE.name}: no block {begin!r} ... {end!r}")
        page = page[: found.start()] + f"{begin}\n{build()}\n{end}" + page[found.end() :]
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    fresh = render(PAGE.read_text(encoding="utf-8"))
    return write_or_check(PAGE, fresh, COMMAND, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
