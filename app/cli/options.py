"""`analyze`'s run-option flags, generated from `core.options.RunOptions` (one flag per field,
its name, type, choices and help from the field), and read back into a validated RunOptions."""

from __future__ import annotations

import argparse
import os
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from core.options import (
    RunOptions,
    comma_items,
    in_our_words,
    inapplicable,
    own_errors,
    surface,
)


class OptionError(ValueError):
    """A flag's value, or a flag given for a pipeline it does not apply to."""


def flag_of(name: str, field: FieldInfo) -> str:
    given = surface(field).flag
    if given:
        return given
    dashed = name.replace("_", "-")
    return f"--no-{dashed}" if field.annotation is bool and field.default is True else f"--{dashed}"


def _inner(annotation: Any) -> Any:
    """`X | None` -> X."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def _bounds(field: FieldInfo) -> str:
    """` (20-400)` from the field's own bounds."""
    low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
    if low is None and high is None:
        return ""
    if high is None:
        return f" (>= {low})"
    return f" ({low}-{high})" if low is not None else f" (<= {high})"


class _Unset:
    """`--flag none` on an option that may be unset (`token_budget`): explicitly none, which
    an absent flag (the EDESK_ default) is not."""

    def __repr__(self) -> str:
        return "none"


NONE = _Unset()


def _or_none(typ: Any) -> Any:
    def convert(text: str) -> Any:
        if text.strip().lower() == "none":
            return NONE
        return typ(text)

    convert.__name__ = getattr(typ, "__name__", "value")  # argparse names it in its errors
    return convert


def _nullable(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation)


def cli_fields(options: type[RunOptions] = RunOptions) -> dict[str, FieldInfo]:
    return {k: f for k, f in options.model_fields.items() if surface(f).cli}


def add_flags(parser: argparse.ArgumentParser, options: type[RunOptions] = RunOptions) -> None:
    """One flag per run option the CLI takes; absent flags keep the EDESK_ default."""
    group = parser.add_argument_group("run options (default: the EDESK_ setting of the same name)")
    for name, field in cli_fields(options).items():
        meta = surface(field)
        only = f" [{', '.join(meta.pipelines)} only]" if meta.pipelines else ""
        help_text = (field.description or name) + _bounds(field) + only
        flag = flag_of(name, field)
        typ = _inner(field.annotation)
        kw: dict[str, Any] = {"dest": f"opt_{name}", "help": help_text, "default": None}
        if typ is bool:
            kw.update(action="store_const", const=not field.default)
            if field.default is True:
                kw["help"] = f"turn off: {help_text}"
        elif get_origin(typ) is Literal:
            kw.update(choices=list(get_args(typ)))
        elif get_origin(typ) is tuple:
            members = get_args(get_args(typ)[0])
            kw.update(metavar=meta.metavar or "A,B", help=f"{help_text} ({','.join(members)})")
        elif _nullable(field.annotation):
            kw.update(type=_or_none(typ), metavar=meta.metavar or name.upper())
            kw["help"] = f"{help_text}; `none` for none"
        else:
            kw.update(type=typ, metavar=meta.metavar or name.upper())
        group.add_argument(flag, **kw)


def given_flags(
    args: argparse.Namespace, pipeline: str, options: type[RunOptions] = RunOptions
) -> dict[str, Any]:
    """The options the command line set, refused for a pipeline they do not apply to."""
    given: dict[str, Any] = {}
    for name, field in cli_fields(options).items():
        value = getattr(args, f"opt_{name}", None)
        if value is None:
            continue
        if value is NONE:
            given[name] = None
            continue
        if get_origin(_inner(field.annotation)) is tuple and isinstance(value, str):
            value = comma_items(value)
        given[name] = value
    refused = inapplicable(pipeline, given, options)
    if refused:
        raise OptionError("; ".join(
            f"{flag_of(name, options.model_fields[name])} applies to --pipeline "
            f"{' or '.join(pipelines)} only" for name, pipelines in refused.items()
        ))  # fmt: skip
    return given


def resolve(
    args: argparse.Namespace,
    pipeline: str,
    defaults: RunOptions,
    options: type[RunOptions] = RunOptions,
) -> RunOptions:
    """The run's options: `defaults` with the flags given; a bad value names its flag."""
    given = given_flags(args, pipeline, options)
    if given.get("ensemble_variants") and "writer_variant" not in given:
        given["writer_variant"] = "ensemble"  # --ensemble V1,V2 alone: that ensemble is the run
    try:
        resolved = defaults.merged(given)
    except ValidationError as exc:
        raise OptionError(describe(exc, options)) from None
    if given.get("ensemble_variants") and resolved.writer_variant != "ensemble":
        raise OptionError(  # the list would be ignored: say so instead
            f"--ensemble applies with --variant ensemble, not --variant {resolved.writer_variant}"
        )
    return resolved


def describe(exc: ValidationError, options: type[RunOptions] = RunOptions) -> str:
    """Each problem with the flag it came from and, for one item of a list, the bad item."""
    fields = options.model_fields
    problems = []
    for e in own_errors(exc.errors()):
        name = str(e["loc"][0]) if e["loc"] else ""
        where = flag_of(name, fields[name]) if name in fields else name
        item = f" ({e['input']!r})" if len(e["loc"]) > 1 else ""
        problems.append(f"{where}{item}: {in_our_words(e)}")
    return "; ".join(problems)


def int_within(low: int, high: int | None = None) -> Any:
    """An argparse `type`: an integer in [low, high], refused with the range otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            span = f"{low}-{high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"{value} is outside {span}")
        return value

    parse.__name__ = "integer"
    return parse


def folder_problem(path: Path, flag: str) -> str | None:
    """Why `path` cannot be the folder a command writes into, naming `flag` (None: it can, and
    it exists now). Checked before any work, so a run never ends in a traceback over its
    output folder."""
    if path.exists() and not path.is_dir():
        return f"{flag} {path}: a file is there, not a folder"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"{flag} {path}: cannot make the folder ({exc.strerror or exc})"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"{flag} {path}: the folder is not writable"
    return None
