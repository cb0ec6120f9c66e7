"""Entry points for `langgraph.json` (the LangGraph CLI's dev server and LangGraph Studio).

Each pipeline is a factory returning its graph compiled without a checkpointer (the LangGraph
server supplies persistence). Importing this module builds nothing and reads no settings. A run
needs its `RunContext` (models, transcript index, options) passed as the run's context, which
Earnings Desk's own engine does (`app.service.engine.Engine.run_context`); Studio loads and draws
every graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphs import PIPELINES


def compiled(name: str) -> Any:
    """Pipeline `name`'s graph, compiled (no checkpointer)."""
    return PIPELINES[name].build().compile()


def _factory(name: str) -> Callable[[], Any]:
    def make() -> Any:
        return compiled(name)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"The {name} pipeline: {PIPELINES[name].summary}"
    return make


facts = _factory("facts")
findebate = _factory("findebate")
multi_agent = _factory("multi_agent")
standard_rag = _factory("standard_rag")
zero_shot = _factory("zero_shot")
conversation = _factory("conversation")
writer_feedback = _factory("writer_feedback")
adversarial = _factory("adversarial")
