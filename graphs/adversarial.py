"""adversarial (SAS, seed 004; docs/pipelines/): CIO briefing (three analysts in parallel), the
five-act Bull / Bear debate with a Devil's Advocate who presses only unconvincing rebuttals,
then Judge -> Stress analyst -> Lead analyst and the shared recommendation block. The option
`sas_system` builds the paper's ablations: S1 (Lead alone), S2 (briefing -> Lead), S3 (openings
-> Judge -> Stress -> Lead)."""

from __future__ import annotations

from langgraph.graph import StateGraph

from core.context import RunContext
from core.state import PipelineInput, PipelineOutput
from graphs._common import add_report, add_start, pipeline_graph
from nodes import adversarial as adv
from nodes.adversarial import AdversarialState

AdversarialGraph = StateGraph[AdversarialState, RunContext, PipelineInput, PipelineOutput]


def build_adversarial() -> AdversarialGraph:
    graph: AdversarialGraph = pipeline_graph(AdversarialState)
    add_start(graph, "plan")
    graph.add_node("plan", adv.plan)
    graph.add_conditional_edges("plan", adv.route_system, [*adv.BRIEFING, "lead_analyst"])
    # phase 1: the briefing
    graph.add_node("factual_analyst", adv.make_transcript_analyst("factual_analyst"))
    graph.add_node("behavioral_analyst", adv.make_transcript_analyst("behavioral_analyst"))
    graph.add_node("market_analyst", adv.market_analyst)
    graph.add_node("briefing", adv.briefing)
    # phase 2: the debate
    for side in adv.SIDES:
        for act in ("opening", "rebuttal", "press", "closing"):
            graph.add_node(f"{side}_{act}", adv.make_advocate(side, act))
    graph.add_node("devils_advocate", adv.devils_advocate)
    graph.add_node("assess_rebuttals", adv.assess_rebuttals)
    # phase 3: adjudicate, stress-test, synthesise
    graph.add_node("judge", adv.judge)
    graph.add_node("stress_analyst", adv.stress_analyst)
    graph.add_node("lead_analyst", adv.lead_analyst)
    add_report(graph)

    graph.add_edge(list(adv.BRIEFING), "briefing")
    graph.add_conditional_edges(
        "briefing", adv.route_after_briefing, ["bull_opening", "bear_opening", "lead_analyst"]
    )
    # both openings run in one step, so each one's route triggers the next node once
    for side in adv.SIDES:
        graph.add_conditional_edges(
            f"{side}_opening", adv.route_after_openings, ["devils_advocate", "judge"]
        )
    graph.add_conditional_edges(
        "devils_advocate",
        adv.route_cross_examination,
        ["bull_rebuttal", "bear_rebuttal", "bull_closing", "bear_closing"],
    )
    graph.add_edge(["bull_rebuttal", "bear_rebuttal"], "assess_rebuttals")
    graph.add_conditional_edges(
        "assess_rebuttals",
        adv.route_press,
        ["bull_press", "bear_press", "bull_closing", "bear_closing"],
    )
    graph.add_edge("bull_press", "bull_closing")
    graph.add_edge("bear_press", "bear_closing")
    graph.add_edge(["bull_closing", "bear_closing"], "judge")
    graph.add_edge("judge", "stress_analyst")
    graph.add_edge("stress_analyst", "lead_analyst")
    graph.add_node("verdict_check", adv.verdict_check)
    graph.add_edge("lead_analyst", "verdict_check")
    graph.add_conditional_edges(
        "verdict_check", adv.route_verdict, {"revise": "lead_analyst", "done": "fact_check"}
    )
    return graph
