"""Fact-check, the step before every pipeline's report: figures with no provenance (not stated in
the call or the statements, not computed by code from them, not market data or the vendor's
consensus: `core/provenance.py`) are listed, the model gets one chance to correct or remove them,
the check runs again, and what still fails is left for the report to flag. Off by option: no model
call, the figures are still checked (and footnoted) by the report."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.citations import passages_for
from core.context import RunContext
from core.contract import FactCheck, NodeFailure, NumberCheck
from core.cpu import offload
from core.grounding import check_numbers
from core.llm.chat import ModelCallError, ModelOutputError
from core.provenance import grounding_sources
from core.roles import Role, roles
from core.state import Draft, PipelineState
from nodes.calls import say
from nodes.facts import verified
from nodes.tracing import traced

ROLES = roles(
    Role("fact_checker", remote=3500, local=700),
)


ROLE = "fact_checker"
# A revision shorter than this share of the original deleted more than the listed claims.
MIN_KEPT_SHARE = 0.5


def _checks(markdown: str, state: PipelineState) -> list[NumberCheck]:
    """Every figure of `markdown` checked against where figures may come from (the call, the
    statements, the changes computed from them, the market data, the consensus): CPU-bound on
    call-sized text, so the node runs it in a worker thread, off the event loop."""
    facts = state.get("facts")
    sources = grounding_sources(
        state["transcript"], state.get("financials"), state.get("prices"),
        facts.tone if facts else None,
    )  # fmt: skip
    return check_numbers(markdown, sources)


def _sourced_dropped(before: list[NumberCheck], after: list[NumberCheck]) -> list[str]:
    """The figures of the draft that have a source (the call, the statements, a computation,
    the market data, the consensus) and that the correction no longer states: a correction
    may remove what nothing supports, never what something does."""
    stated = [(c.kind == "percent", c.value) for c in after]
    gone: list[str] = []
    for c in before:
        if c.grounded and not any(
            pct == (c.kind == "percent") and abs(v - c.value) <= 1e-9 * max(1.0, abs(c.value))
            for pct, v in stated
        ):
            gone.append(c.text)
    return list(dict.fromkeys(gone))


@traced("fact_check")
async def fact_check(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    draft: Draft = state.get("final", state["draft"])
    checks = await offload(_checks, draft.markdown, state)
    before = [(c.text, c.context) for c in checks if not c.grounded]
    texts = [t for t, _ in before]
    base = FactCheck(enabled=True, checked=len(checks), ungrounded_before=texts)
    if not ctx.options.fact_check or ctx.options.profile == "paper":
        note = (
            "fact-check correction is off for this run; unsupported figures are flagged"
            if ctx.options.profile == "desk"
            else "the paper profile has no fact-check rewrite (no paper has one); unsupported "
            "figures are flagged"
        )
        off = {"enabled": False, "still_ungrounded": texts, "note": note}
        return {"fact_check": base.model_copy(update=off)}
    if not before:
        return {"fact_check": base}
    financials = state.get("financials")
    request = dict(
        **verified(state),
        report=draft.markdown,
        problems=[{"text": t, "context": c} for t, c in before],
        passages=passages_for(
            state["transcript"], [c for _, c in before], cap_words=ctx.words.evidence
        ),
        financials=financials.figures_text() if financials else "",
    )
    try:
        revised, model = await say(ctx, ROLE, "shared/fact_check", **request)
    except ModelOutputError as exc:
        note = f"the correction came back empty ({exc}); the original text is kept"
    except ModelCallError as exc:  # an optional step: its outage degrades, never fails, the run
        note = f"the correction model failed ({exc.reason}: {exc}); the original text is kept"
        kept = {"correction_attempted": True, "still_ungrounded": texts, "note": note}
        return {
            "fact_check": base.model_copy(update=kept),
            "notes": [f"fact_check: {note}"],
            "failures": [NodeFailure(node="fact_check", reason=f"model {exc.reason}: {exc}")],
        }
    else:
        revised_checks = await offload(_checks, revised, state)
        after = [c.text for c in revised_checks if not c.grounded]
        kept_share = len(revised.split()) / max(1, len(draft.markdown.split()))
        dropped = _sourced_dropped(checks, revised_checks)
        if len(after) >= len(texts):
            note = (
                f"the correction left {len(after)} unsupported figure(s) (was {len(texts)}); "
                "the original text is kept"
            )
        elif kept_share < MIN_KEPT_SHARE:
            note = (
                f"the correction kept only {kept_share:.0%} of the text, more than the listed "
                "claims; the original text is kept"
            )
        elif dropped:
            note = (
                f"the correction removed {len(dropped)} figure(s) that have a source "
                f"({', '.join(dropped[:3])}); the original text is kept"
            )
        else:
            fixed = base.model_copy(
                update={
                    "correction_attempted": True, "corrected": True, "still_ungrounded": after,
                    "note": f"corrected by {model}: "
                    f"{len(texts) - len(after)} of {len(texts)} fixed",
                }
            )  # fmt: skip
            return {"final": draft.model_copy(update={"markdown": revised}), "fact_check": fixed}
    kept = {"correction_attempted": True, "still_ungrounded": texts, "note": note}
    return {"fact_check": base.model_copy(update=kept), "notes": [f"fact_check: {note}"]}
