"""Grounded decoding: the grammar, run by llama.cpp's own grammar sampler over the bundled
model's vocabulary (no inference: the vocabulary alone loads in well under a second), lets a
text through exactly when every figure grounding would read in it is one of the sources'."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.llm.local import bundled_model_path
from core.grounding import check_numbers
from core.llm.decoding import current_grammar, figure_grammar, figure_sources, source_figures

SOURCE = (
    "Revenue rose 13% to $1.5 billion in 2019. We opened 150 stores; margin widened 20 basis "
    "points. EPS was $1.31, and we see 2020 revenue of 6.15 to 6.21 billion."
)


class Acceptor:
    """Feeds a text's tokens to llama.cpp's grammar sampler: does the grammar allow it?"""

    def __init__(self) -> None:
        import llama_cpp
        from llama_cpp import llama_cpp as C

        self.C = C
        self.llama = llama_cpp.Llama(str(bundled_model_path()), vocab_only=True, verbose=False)
        self.vocab = C.llama_model_get_vocab(self.llama._model.model)
        self.eos = C.llama_vocab_eos(self.vocab)

    def _allowed(self, sampler: Any, token: int) -> bool:
        C = self.C
        data = (C.llama_token_data * 1)(C.llama_token_data(token, 0.0, 0.0))
        arr = C.llama_token_data_array(data=data, size=1, selected=-1, sorted=False)
        C.llama_sampler_apply(sampler, ctypes.byref(arr))
        return bool(data[0].logit != float("-inf"))

    def accepts(self, grammar: str, text: str) -> bool:
        C = self.C
        sampler = C.llama_sampler_init_grammar(self.vocab, grammar.encode(), b"root")
        assert sampler, "the grammar did not parse"
        try:
            for token in self.llama.tokenize(text.encode(), add_bos=False, special=False):
                if not self._allowed(sampler, token):
                    return False
                C.llama_sampler_accept(sampler, token)
            return self._allowed(sampler, self.eos)  # and the text may end there
        finally:
            C.llama_sampler_free(sampler)


@pytest.fixture(scope="module")
def acceptor() -> Iterator[Acceptor]:
    if not Path(bundled_model_path()).is_file():
        pytest.skip("the bundled model package is not installed")
    yield Acceptor()


GROUNDED = [
    "Revenue rose 13% to $1.5 billion, EPS $1.31.",
    "Sales grew 13 percent; margin up 20 bps in 2019 [4bc14f6c498a-0001].",
    "Guidance: 6.15 to 6.21 billion for 2020, with 150 stores (Q3, FY2021).",
    "### 1-Day Trading Recommendation\nPosition: LONG\nConviction: 75%\n",
    "Three risks: 2 lawsuits, 1 recall. See [^unverified-1].",
    "No figure at all",
    "EPS $1.31 per share, 150 per center, 150 per cell.",
    "In US dollars: US$1.5 billion, € 1.31.",
    "",
]
# Each states a figure the call does not, or not in that form (the grammar asks for the
# sources' own writing: stricter than grounding's rounding, which would pass "$1.311").
INVENTED = [
    "Revenue rose 14% to $1.5 billion.",  # a percentage the call never stated
    "Revenue rose 13 to 15 stores",  # 15 is not the call's
    "We opened 150 million stores.",  # 150 stated plainly, not as millions
    "We opened 150% more stores.",  # nor as a percent
    "Revenue was $1.5 million.",  # billions in the call
    "EPS was $1.311 this quarter.",  # a digit more
    "Revenue was 2019.5 dollars.",  # 2019 then .5
    "It sold 13,500 units.",  # 13 then ,500
    "Margin rose 7%.",  # a single digit, but as a percent it is a figure
    "Shares were $3 two days ago.",  # and as an amount
    "It trades $1.31 per cent below.",  # 1.31 is an amount, not a percent
    "About 150m stores",
]


@pytest.mark.parametrize("text", GROUNDED)
def test_grammar_lets_the_sources_figures_through(acceptor: Acceptor, text: str) -> None:
    assert acceptor.accepts(figure_grammar([SOURCE]), text)
    checks = check_numbers(text, [SOURCE])
    assert all(c.grounded for c in checks), checks  # and grounding agrees


@pytest.mark.parametrize("text", INVENTED)
def test_grammar_refuses_any_other_figure(acceptor: Acceptor, text: str) -> None:
    assert not acceptor.accepts(figure_grammar([SOURCE]), text)


def test_grammar_for_a_call_with_no_figures(acceptor: Acceptor) -> None:
    grammar = figure_grammar(["We had a good quarter and thank our employees."])
    assert acceptor.accepts(grammar, "A good quarter, 3 themes, Conviction: 70%.")
    assert not acceptor.accepts(grammar, "Revenue rose 12%.")


def test_source_figures_by_kind() -> None:
    kinds = source_figures([SOURCE])
    assert kinds["percent"] == {"13"}
    assert kinds["bps"] == {"20"}
    assert kinds["billion"] == {"1.5", "6.21"}
    assert {"2019", "150", "1.31", "6.15", "2020"} <= kinds["plain"]


def test_current_grammar_only_inside_a_node_with_sources() -> None:
    assert current_grammar() is None
    with figure_sources([SOURCE]):
        grammar = current_grammar()
        assert grammar is not None and '"1.31"' in grammar
    assert current_grammar() is None
    with figure_sources(None):
        assert current_grammar() is None


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "x", "object": "chat.completion", "created": 0, "model": "smollm2",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }  # fmt: skip


def _settings(tmp_path: Path, **kw: Any) -> Any:
    from app.settings import Settings

    return Settings(data_dir=tmp_path, **kw)


async def test_a_traced_node_sends_its_calls_figures_as_a_grammar(tmp_path: Path) -> None:
    """What goes over the wire: inside a node whose state holds a call, a model that takes a
    grammar gets the call's figures' grammar next to its max_tokens; outside a node, or with
    the setting off, the request is as before."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from langgraph.runtime import Runtime

    from app.llm.factory import ModelFactory
    from core.context import RunContext
    from core.llm.chat import complete
    from core.options import RunOptions
    from core.transcript import parse_transcript
    from nodes.tracing import traced

    bodies: list[dict[str, Any]] = []

    class Llama(BaseHTTPRequestHandler):  # a llama.cpp server that answers one canned text
        def do_POST(self) -> None:
            bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            out = json.dumps(_completion("Revenue rose 13%.")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Llama)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        for setting, expected in (("auto", True), ("off", False)):
            bodies.clear()
            settings = _settings(tmp_path, grounded_decoding=setting)
            models = ModelFactory(settings, local_base_url=url)
            handle = models.chat("synthesizer")
            assert handle.grammar is expected

            @traced("probe")
            async def probe(state: dict[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
                chat = runtime.context.models.chat("synthesizer")
                await complete(chat, [("user", "Write.")], role="synthesizer")  # type: ignore[list-item]
                return {}

            context = RunContext(models=models, index=None, options=RunOptions())  # type: ignore[arg-type]
            await probe({"transcript": parse_transcript(SOURCE)}, Runtime(context=context))
            await complete(handle, [("user", "Write.")], role="synthesizer")  # type: ignore[list-item]
            inside, outside = bodies
            assert inside["max_tokens"] == outside["max_tokens"] > 0
            assert "grammar" not in outside
            if expected:
                assert inside["grammar"] == figure_grammar([SOURCE])
            else:
                assert "grammar" not in inside
    finally:
        server.shutdown()


def test_hosted_models_take_the_grammar_only_when_asked(tmp_path: Path) -> None:
    from app.llm.factory import ModelFactory

    hosted = {"provider": "openai", "model": "qwen2.5", "openai_base_url": "http://vllm.test/v1"}
    assert not ModelFactory(_settings(tmp_path, **hosted)).chat("synthesizer").grammar
    on = ModelFactory(_settings(tmp_path, grounded_decoding="on", **hosted))
    assert on.chat("synthesizer").grammar
    with pytest.raises(ValueError, match="grounded_decoding"):
        _settings(tmp_path, grounded_decoding="sometimes")


def test_sources_given_as_a_function_are_read_once_and_only_when_asked() -> None:
    """A node's sources are read the first time its model asks for a grammar (a hosted or
    fake model never asks: nothing is read), and once for all its calls."""
    reads: list[int] = []

    def read() -> list[str]:
        reads.append(1)
        return [SOURCE]

    with figure_sources(read):
        assert reads == []
        first = current_grammar()
        assert current_grammar() == first and reads == [1]
    with figure_sources([SOURCE]):
        assert current_grammar() == first
    with figure_sources(lambda: None):
        assert current_grammar() is None
