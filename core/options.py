"""Run options, defined once. `RunOptions` is the authority for every per-run knob: its type,
bounds, default and description. Everything else is derived from it, never copied:

- the API request model (`request_model`: every field optional, same bounds, strict),
- the process settings (`app.settings.Settings` extends `RunOptions`, so `EDESK_<NAME>` sets
  each default),
- the CLI flags (`add_flags` / `given_flags`),
- the stored form (a run's input keeps its resolved `RunOptions`, typed).

A new option is one field here; a field that only some surfaces take says so with `Surface`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    ValidationError,
    create_model,
)
from pydantic.fields import FieldInfo
from pydantic_core import CoreSchema, core_schema
from pydantic_settings import NoDecode

SasSystem = Literal["S1", "S2", "S3", "S4"]
WriterVariant = Literal[
    "simple_writer", "advanced_writer", "simple_feedback", "advanced_feedback", "ensemble"
]
EnsembleMember = Literal["simple_writer", "advanced_writer", "simple_feedback", "advanced_feedback"]
# What `ensemble` can combine: every variant but itself.
ENSEMBLE_MEMBERS: tuple[EnsembleMember, ...] = get_args(EnsembleMember)
# How passages are found for a query: embeddings, BM25 over words and figures, or both fused by
# reciprocal rank (bench/retrieval.py measured hybrid best on ECTSum; docs/pipelines/findebate.md).
Retriever = Literal["hybrid", "dense", "bm25"]
# Every pipeline's name, in the order `graphs.PIPELINES` registers them (tests/graphs check it):
# the CLI's choices without importing the graphs.
PIPELINE_NAMES = (
    "facts", "findebate", "multi_agent", "standard_rag", "zero_shot", "conversation",
    "writer_feedback", "adversarial",
)  # fmt: skip
# Whose method a run follows: ours (the desk's additions) or each paper's as published.
Profile = Literal["desk", "paper"]


@dataclass(frozen=True)
class Surface:
    """Where an option appears besides the API (field metadata): its CLI flag name (default
    `--<name>`; for a bool that defaults to true, `--no-<name>`), whether the CLI has it at all,
    and the pipelines it applies to (the CLI refuses it for others)."""

    flag: str | None = None
    cli: bool = True
    pipelines: tuple[str, ...] = ()
    metavar: str | None = None


def comma_items(text: str) -> tuple[str, ...]:
    """`"a, b,,c"` -> `("a", "b", "c")`: the non-blank parts of a comma-separated list; a JSON
    array of strings (`["a", "b"]`, as other settings are written) is read as its items."""
    stripped = text.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        try:
            items = json.loads(stripped)
        except ValueError:
            items = None
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            return tuple(i.strip() for i in items if i.strip())
    return tuple(part.strip() for part in text.split(",") if part.strip())


def own_errors(errors: list[Any]) -> list[Any]:
    """A validation's errors without the length error a list gets when one of its items was
    refused ("needs at least 2 items" of a list of two, one of them unknown): the item's own
    error says what is wrong."""
    items_refused = {e["loc"][0] for e in errors if len(e.get("loc") or ()) > 1}
    return [
        e for e in errors
        if not (e.get("type") == "too_short" and len(e.get("loc") or ()) == 1
                and e["loc"][0] in items_refused)
    ]  # fmt: skip


@dataclass(frozen=True)
class CommaSeparated:
    """Field metadata: a string is read as a comma-separated list (`comma_items`), as an
    environment variable, a .env file or a CLI flag gives it; a list or tuple passes as given."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        def split(value: Any) -> Any:
            return comma_items(value) if isinstance(value, str) else value

        return core_schema.no_info_before_validator_function(split, handler(source))


T = TypeVar("T")
# A setting or option written `EDESK_X=a,b,c`: NoDecode keeps pydantic-settings from reading
# the value as JSON, so the plain text reaches `CommaSeparated`. The API takes JSON arrays only
# (`request_model` drops both).
CommaList = Annotated[tuple[T, ...], NoDecode, CommaSeparated()]


def in_our_words(error: Any) -> str:
    """A validation error's message without the library's phrasing ("Tuple should have at least
    2 items after validation, not 1", "Value error, ..."): what is wrong, in a user's words."""
    kind, ctx, given = error.get("type"), error.get("ctx") or {}, error.get("input")
    count = len(given) if isinstance(given, list | tuple | set) else None
    if kind == "too_short" and "min_length" in ctx:
        return f"needs at least {ctx['min_length']} items" + (f", got {count}" if count else "")
    if kind == "too_long" and "max_length" in ctx:
        return f"takes at most {ctx['max_length']} items" + (f", got {count}" if count else "")
    if kind == "missing":
        return "missing (required)"
    if kind == "extra_forbidden":
        return "not a known field"
    bounds = {"greater_than_equal": (">=", "ge"), "less_than_equal": ("<=", "le"),
              "greater_than": (">", "gt"), "less_than": ("<", "lt")}  # fmt: skip
    if kind in bounds and bounds[kind][1] in ctx:
        sign, key = bounds[kind]
        return f"must be {sign} {ctx[key]}"
    return str(error.get("msg", "")).removeprefix("Value error, ")


def is_comma_list(field: FieldInfo) -> bool:
    return any(isinstance(m, CommaSeparated) for m in field.metadata)


def _distinct(values: tuple[str, ...]) -> tuple[str, ...]:
    if len(set(values)) != len(values):
        raise ValueError("must not repeat a variant")
    return values


MAX_TOKEN_BUDGET = 100_000_000


class RunOptions(BaseModel):
    """Per-run options. The app resolves a run's options once, when the run is accepted:
    the request's values over the `EDESK_` defaults; the run keeps them as stored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token_budget: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TOKEN_BUDGET,
        description="stop the run past this many tokens (none: no limit; at most 100 million, "
        "far beyond any run, so a budget is a number the run's counters can reach)",
    )
    stream_tokens: Annotated[bool, Surface(cli=False)] = Field(
        default=False, description="emit `token` events while models write (live only)"
    )
    parse_retries: int = Field(
        default=2, ge=0, le=5, description="retries of a structured answer that did not validate"
    )
    max_conviction_shift: int = Field(
        default=10,
        ge=0,
        le=100,
        description="findebate: the debate is reverted when a conviction moves more than this "
        "(accepted by every pipeline, used by findebate's debate)",
    )
    debate_rounds: Annotated[int, Surface(pipelines=("findebate",), metavar="N")] = Field(
        default=1,
        ge=1,
        le=3,
        description="findebate: Trust-Skeptic-Leader rounds (1 as the paper recommends; 2 is its "
        "ablation); the revert guard checks every round against the original report",
    )
    sas_system: Annotated[SasSystem, Surface(pipelines=("adversarial",))] = Field(
        default="S4",
        description="adversarial: the SAS paper's system; S4 the full framework, S1 one Lead "
        "analyst on the raw call and market data, S2 briefing then Lead (no debate), S3 a "
        "one-shot Bull/Bear debate without the press-the-weakness protocol",
    )
    chunk_words: int = Field(
        default=150,
        ge=20,
        le=400,
        description="words per transcript chunk (150 keeps chunks inside MiniLM's 256-token "
        "window)",
    )
    retrieval_k: int = Field(default=4, ge=1, le=50, description="passages per retrieval query")
    evidence_per_dimension: int = Field(
        default=8, ge=1, le=100, description="passages kept per retrieval dimension"
    )
    evidence_words: int | None = Field(
        default=None,
        ge=50,
        le=50_000,
        description="at most this many words of retrieved evidence per prompt (none: as much "
        "as the model's context window holds)",
    )
    transcript_words: int | None = Field(
        default=None,
        ge=50,
        le=500_000,
        description="at most this many words of the call per prompt (none: the whole call "
        "when the model's context window holds it, else cut by relevance to fit)",
    )
    conversation_rounds: Annotated[
        int, Surface(flag="--rounds", pipelines=("conversation",), metavar="N")
    ] = Field(default=3, ge=1, le=10, description="conversation: round limit")
    writer_variant: Annotated[
        WriterVariant, Surface(flag="--variant", pipelines=("writer_feedback",))
    ] = Field(default="advanced_feedback", description="writer_feedback: which variant runs")
    ensemble_variants: Annotated[
        CommaList[EnsembleMember],
        AfterValidator(_distinct),
        Surface(flag="--ensemble", pipelines=("writer_feedback",), metavar="V1,V2,..."),
    ] = Field(
        default=ENSEMBLE_MEMBERS,
        min_length=2,
        max_length=4,
        description="writer_feedback ensemble: the variants to run and grade (two or more; "
        "the CLI's --ensemble given without --variant runs the ensemble)",
    )
    feedback_iterations: Annotated[int, Surface(pipelines=("writer_feedback",), metavar="N")] = (
        Field(default=3, ge=1, le=5, description="writer_feedback: simple feedback loop limit")
    )
    retriever: Retriever = Field(
        default="hybrid",
        description="findebate's and multi_agent's evidence search: hybrid (dense + BM25, "
        "fused by rank), dense or bm25; standard_rag always uses dense (accepted by every "
        "pipeline, used by those two)",
    )
    profile: Profile = Field(
        default="desk",
        description="desk: our additions (call facts, consensus, computed changes, the "
        "fact-check rewrite); paper: each role gets exactly what its paper gives it, in its "
        "paper's layout and sampling, and the report is annotated, never rewritten "
        "(docs/pipelines/<pipeline>.md lists each role's inputs in each profile)",
    )
    fact_check: bool = Field(
        default=True,
        description="one model correction of unsupported figures before the report (false: "
        "they are still flagged)",
    )

    def merged(self, given: dict[str, Any]) -> RunOptions:
        """These options with `given` over them, validated (ValidationError names the field)."""
        return type(self).model_validate({**self.model_dump(), **given})


def surface(field: FieldInfo) -> Surface:
    return next((m for m in field.metadata if isinstance(m, Surface)), Surface())


def inapplicable(
    pipeline: str, given: Iterable[str], options: type[RunOptions] = RunOptions
) -> dict[str, tuple[str, ...]]:
    """The one rule every surface applies (API, LangGraph routes, CLI, eval variants): of the
    options a request `given`, those that name their pipelines (`Surface.pipelines`) and not
    this one, each with the pipelines it applies to. Each surface refuses them in its words."""
    out: dict[str, tuple[str, ...]] = {}
    for name in given:
        pipelines = surface(options.model_fields[name]).pipelines
        if pipelines and pipeline not in pipelines:
            out[name] = pipelines
    return out


def _as_list(annotation: Any) -> Any:
    """JSON bodies carry arrays: tuple[X, ...] is list[X] in the request model."""
    if get_origin(annotation) is tuple:
        return list[get_args(annotation)[0]]  # type: ignore[misc]
    return annotation


def request_model(options: type[RunOptions] = RunOptions, name: str = "RunOptionsIn") -> Any:
    """The API's per-run options: every field of `options`, optional (absent: the server's
    default), with the same bounds, checks and descriptions; strict, unknown keys refused."""
    fields: dict[str, Any] = {}
    for key, field in options.model_fields.items():
        inner = _as_list(field.annotation)
        checks = [
            m
            for m in field.metadata
            if m is not NoDecode and not isinstance(m, Surface | CommaSeparated)
        ]
        typ = Annotated[inner, *checks] if checks else inner
        fields[key] = (Union[typ, None], Field(default=None, description=field.description))  # noqa: UP007
    return create_model(
        name,
        __config__=ConfigDict(extra="forbid", strict=True),
        __doc__="Per-run options; each overrides the server's default for this run only.",
        **fields,
    )


# -- variants: a pipeline named with the options it runs with ("adversarial@S1") ---------------


@dataclass(frozen=True)
class Variant:
    """A pipeline and the options that make it one of its paper's variants: `adversarial@S1`,
    `writer_feedback@advanced_feedback`, `findebate@rounds=2` (several: `@a=1&b=2`). `name`
    is the spec as given, which names its reports and its side of a pairwise duel."""

    name: str
    pipeline: str
    options: tuple[tuple[str, Any], ...] = ()

    def apply(self, base: RunOptions) -> RunOptions:
        """`base` with this variant's options over it."""
        return base.merged(dict(self.options)) if self.options else base


def _pipeline_fields(pipeline: str) -> dict[str, FieldInfo]:
    return {k: f for k, f in RunOptions.model_fields.items() if pipeline in surface(f).pipelines}


def _choice(pipeline: str) -> str | None:
    """The pipeline's one choice-of-variant option (a Literal: `sas_system`), if it has one."""
    own = [k for k, f in _pipeline_fields(pipeline).items() if get_origin(f.annotation) is Literal]
    return own[0] if len(own) == 1 else None


def _option_key(pipeline: str, key: str) -> str:
    """A field name, or its short name among the pipeline's own options ("rounds")."""
    if key in RunOptions.model_fields:
        return key
    own = [k for k in _pipeline_fields(pipeline) if key in k.split("_")]
    if len(own) != 1:
        names = ", ".join(_pipeline_fields(pipeline)) or "none"
        raise ValueError(f"{pipeline}: no option {key!r} (its own options: {names})")
    return own[0]


def parse_variant(spec: str) -> Variant:
    """`name`, `name@VALUE` (the pipeline's one choice-of-variant option, e.g. `sas_system`)
    or `name@key=value&key=value`; values validated as `RunOptions` validates them."""
    pipeline, at, rest = spec.strip().partition("@")
    if not at:
        return Variant(pipeline, pipeline)
    if not rest:
        raise ValueError(f"{spec!r}: nothing after '@'")
    given: dict[str, Any] = {}
    for part in rest.split("&"):
        key, eq, value = part.partition("=")
        if not eq:  # a bare value: the pipeline's Literal option (its paper's variants)
            choice = _choice(pipeline)
            if choice is None:
                raise ValueError(f"{spec!r}: {pipeline} has no one variant option; use key=value")
            key, value = choice, part
        name = _option_key(pipeline, key.strip())
        if only := inapplicable(pipeline, [name]).get(name):
            raise ValueError(f"{spec!r}: {name} applies to {' or '.join(only)} only")
        field = RunOptions.model_fields[name]
        given[name] = value.split("+") if get_origin(field.annotation) is tuple else value.strip()
    try:
        valid = RunOptions().merged(given)
    except ValidationError as exc:  # a bad value: named with its option, in our words
        problems = "; ".join(
            f"{e['loc'][0] if e['loc'] else 'value'}: {in_our_words(e)}"
            for e in own_errors(exc.errors())
        )
        raise ValueError(f"{spec!r}: {problems}") from None
    return Variant(spec.strip(), pipeline, tuple((k, getattr(valid, k)) for k in sorted(given)))


def named_variants(pipelines: Iterable[str]) -> list[str]:
    """Every pipeline and every `name@VALUE` its one choice-of-variant option allows (the API's
    enumerable names; `key=value` variants are the CLI's)."""
    out: list[str] = []
    for name in pipelines:
        out.append(name)
        choice = _choice(name)
        if choice is not None:
            annotation = RunOptions.model_fields[choice].annotation
            out += [f"{name}@{value}" for value in get_args(annotation)]
    return out
