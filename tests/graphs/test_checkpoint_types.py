"""The checkpoint serializer's allow-list is derived from the state types
(core.state.checkpoint_types): every type a real run's checkpoints hold revives under the strict
list, a run stopped midway resumes from its checkpoint in a fresh engine, and a type added to a
state is allowed without a list to edit."""

from __future__ import annotations

import dataclasses
import operator
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph.checkpoint.serde.event_hooks import register_serde_event_listener
from pydantic import BaseModel

from app.service.engine import Engine
from app.service.events import NodeFinished
from app.settings import Settings
from core.context import RunControl
from core.contract import Report
from core.inputs import financials_from_text, prices_from_text
from core.state import PipelineState, checkpoint_types
from core.transcript import parse_transcript
from graphs import PIPELINES, state_types
from tests.conftest import SAMPLE

SAMPLES = SAMPLE.parent
CASES: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in PIPELINES] + [
    ("writer_feedback", {"writer_variant": "ensemble"}),
    ("adversarial", {"sas_system": "S3"}),
]


def held_types(value: Any, found: set[type]) -> set[type]:
    """Every model, dataclass and enum type among `value`'s parts, however deep."""
    if isinstance(value, BaseModel):
        found.add(type(value))
        for part in value.__dict__.values():
            held_types(part, found)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        found.add(type(value))
        for f in dataclasses.fields(value):
            held_types(getattr(value, f.name), found)
    elif isinstance(value, Enum):
        found.add(type(value))
    elif isinstance(value, dict):
        for part in value.values():
            held_types(part, found)
    elif isinstance(value, list | tuple | set | frozenset):
        for part in value:
            held_types(part, found)
    return found


def open_engine(data: Path, **options: Any) -> Any:
    settings = Settings(data_dir=data, provider="fake", fact_check=True, **options)
    return Engine.open(
        settings, embeddings=DeterministicFakeEmbedding(size=32), embedding_name="fake"
    )


async def checkpoint_contents(engine: Engine, run_id: str) -> set[type]:
    """The types held by every saved checkpoint and pending write of the run (each read back
    through the engine's serializer, as a resume reads it)."""
    found: set[type] = set()
    config: Any = {"configurable": {"thread_id": run_id}}
    saved = [tup async for tup in engine.checkpointer.alist(config)]
    assert saved, "the run kept no checkpoint"
    for tup in saved:
        held_types(tup.checkpoint["channel_values"], found)
        held_types([value for _, _, value in tup.pending_writes or []], found)
    return found


@pytest.mark.asyncio
@pytest.mark.parametrize(("pipeline", "options"), CASES, ids=[f"{p}-{o}" for p, o in CASES])
async def test_every_checkpointed_type_revives_under_the_strict_list(
    tmp_path: Path, pipeline: str, options: dict[str, Any]
) -> None:
    blocked: list[Any] = []
    stop = register_serde_event_listener(
        lambda event: blocked.append(event) if event["kind"] == "msgpack_blocked" else None
    )
    allowed = set(state_types())
    transcript = parse_transcript(SAMPLE.read_text(encoding="utf-8"))
    financials = financials_from_text(
        (SAMPLES / "northwind_financials.json").read_text(encoding="utf-8"), csv_format=False
    )
    prices = prices_from_text(
        (SAMPLES / "northwind_prices.csv").read_text(encoding="utf-8"), csv_format=True
    )
    control = RunControl()
    try:
        async with open_engine(tmp_path / "data", **options) as engine:
            half = len(engine.graphs[pipeline].get_graph().nodes) // 2
            done: list[str] = []

            def on_event(event: BaseModel) -> None:
                if isinstance(event, NodeFinished):
                    done.append(event.node)
                    control.cancelled = len(done) >= half

            request = engine.request(
                pipeline, transcript, financials=financials, prices=prices, durability="sync",
                keep_checkpoint=True,
            )  # fmt: skip
            first = await engine.run(request, on_event=on_event, control=control)
            assert first.status == "cancelled", (first.status, first.error)
            midway = await checkpoint_contents(engine, first.run_id)
        # a fresh engine (a restarted process): the checkpoint is all it has
        async with open_engine(tmp_path / "data", **options) as engine:
            resumed = await engine.run(
                engine.request(
                    pipeline, None, run_id=first.run_id, durability="sync", keep_checkpoint=True
                )
            )
            assert resumed.status in ("succeeded", "degraded"), resumed.error
            assert isinstance(resumed.report, Report)
            final = await checkpoint_contents(engine, first.run_id)
    finally:
        stop()
    assert not blocked, blocked
    held = midway | final
    assert held <= allowed, sorted(t.__qualname__ for t in held - allowed)
    assert Report in final and {"Transcript", "Financials", "Prices"} <= {t.__name__ for t in held}


class Novel(Enum):
    A = "a"


@dataclasses.dataclass(frozen=True)
class Leaf:
    kind: Novel


class Inner(BaseModel):
    leaves: dict[str, list[Leaf]]


class Outer(BaseModel):
    inner: Inner | None = None


class NovelState(PipelineState, total=False):
    """A pipeline's state with a key of a type no state had: found through a list, a model's
    optional field, a dict of lists, a dataclass and an enum."""

    outers: Annotated[list[Outer], operator.add]


def test_a_type_added_to_a_state_is_allowed_without_a_list() -> None:
    derived = checkpoint_types(NovelState)
    assert {Outer, Inner, Leaf, Novel} <= set(derived)
    assert set(checkpoint_types()) <= set(derived)  # the shared state's types too
    assert not {Outer, Inner, Leaf, Novel} & set(state_types())


def test_every_pipeline_state_is_walked() -> None:
    from core.judging import Verdict
    from nodes.adversarial import Argument
    from nodes.conversation import ConversationTurn
    from nodes.writer_feedback import Grade

    assert {Argument, Verdict, ConversationTurn, Grade, Report} <= set(state_types())
