"""The turn models share one base and one vocabulary: `speaker` names who spoke, `round` counts
the rounds of an exchange that has them; what was stored under an old name still reads."""

from __future__ import annotations

import json

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from pydantic import BaseModel

from core.contract import DebateLog, DebateTurn, Report, Speech, TurnBase
from core.transcript import Turn
from nodes.adversarial import Argument
from nodes.conversation import ConversationTurn


def test_one_base_one_vocabulary() -> None:
    for model in (Turn, DebateTurn, ConversationTurn, Argument):
        assert issubclass(model, TurnBase), model
        assert "speaker" in model.model_fields and "agent" not in model.model_fields
    for spoken in (DebateTurn, ConversationTurn, Argument):
        assert issubclass(spoken, Speech)
        assert {"speaker", "model", "text"} <= set(spoken.model_fields)
    assert "round" in DebateTurn.model_fields and "round" in ConversationTurn.model_fields
    turn = DebateTurn(speaker="skeptic", model="m", text="risks", round=2)
    assert turn.summary() == "skeptic: risks"
    assert Turn(section="Q&A", speaker=None, start=0, end=3).speaker is None


def test_a_report_stored_with_agent_reads_and_is_written_with_speaker() -> None:
    old = {
        "pipeline": "findebate", "status": "degraded", "created_at": "2026-01-01T00:00:00Z",
        "transcript_sha256": "0", "markdown": "m",
        "failures": [{"node": "leader", "reason": "unparseable"}],
        "debate": {"turns": [{"agent": "trust", "model": "m", "text": "t", "round": 1}]},
    }  # fmt: skip
    report = Report.model_validate_json(json.dumps(old))
    assert report.debate == DebateLog(turns=[DebateTurn(speaker="trust", model="m", text="t")])
    written = report.model_dump(mode="json")["debate"]["turns"][0]
    assert written["speaker"] == "trust" and "agent" not in written


def test_a_checkpoint_written_with_agent_revives() -> None:
    """A checkpoint saved before the rename holds `core.contract.DebateTurn` with `agent`."""

    class DebateTurnBefore(BaseModel):
        agent: str
        model: str
        text: str
        round: int = 1

    DebateTurnBefore.__module__, DebateTurnBefore.__name__ = "core.contract", "DebateTurn"
    serde = JsonPlusSerializer(allowed_msgpack_modules=[DebateTurn])
    saved = serde.dumps_typed([DebateTurnBefore(agent="leader", model="m", text="final")])
    assert serde.loads_typed(saved) == [DebateTurn(speaker="leader", model="m", text="final")]
