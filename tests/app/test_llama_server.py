"""The local server's grammar sampling (app/llm/llama_server.py), driven with scripted logits
over the bundled model's vocabulary (no inference): a token the model prefers and the grammar
allows is taken as drawn, without filtering the vocabulary; a refused one is redrawn from the
tokens the grammar allows; either way every emitted token is one the grammar accepts, so the
text it builds passes the grammar and the grounding check."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.llm.llama_server import LazyGrammarSampler, install
from app.llm.local import LocalLlamaServer, bundled_model_path
from core.grounding import check_numbers
from core.llm.decoding import figure_grammar

SOURCE = "Revenue rose 13% to $1.5 billion in 2019, and we opened 150 stores."


class Vocab:
    def __init__(self) -> None:
        import llama_cpp

        self.llama = llama_cpp.Llama(str(bundled_model_path()), vocab_only=True, verbose=False)
        self.n = self.llama.n_vocab()

    def tokens(self, text: str) -> list[int]:
        return list(self.llama.tokenize(text.encode(), add_bos=False, special=False))

    def text(self, tokens: list[int]) -> str:
        return self.llama.detokenize(tokens).decode()

    def sampler(self, grammar: str) -> LazyGrammarSampler:
        from llama_cpp._internals import LlamaSampler

        chain = LlamaSampler()  # type: ignore[no-untyped-call]
        chain.add_greedy()  # type: ignore[no-untyped-call]  # the chain takes the highest logit: the test scripts the choice
        return LazyGrammarSampler(chain, self.llama._model.vocab, grammar, "root", self.n)

    def prefer(self, token: int) -> np.ndarray[Any, Any]:
        logits = np.zeros(self.n, dtype=np.single)
        logits[token] = 10.0
        return logits


@pytest.fixture(scope="module")
def vocab() -> Iterator[Vocab]:
    if not Path(bundled_model_path()).is_file():
        pytest.skip("the bundled model package is not installed")
    yield Vocab()


def test_allowed_draws_are_taken_without_filtering(vocab: Vocab) -> None:
    sampler = vocab.sampler(figure_grammar([SOURCE]))
    want = vocab.tokens("Revenue rose 13% to $1.5 billion, 150 stores.")
    got = [sampler.choose(vocab.prefer(t)) for t in want]
    assert got == want and sampler.redraws == 0 and sampler.tokens == len(want)


def test_a_refused_draw_is_redrawn_from_what_the_grammar_allows(vocab: Vocab) -> None:
    sampler = vocab.sampler(figure_grammar([SOURCE]))
    wanted = "Revenue rose 17% to $2.4 billion in 2021, and we opened 260 stores."
    emitted: list[int] = []
    for token in vocab.tokens(wanted):
        emitted.append(sampler.choose(vocab.prefer(token)))
    text = vocab.text(emitted)
    assert sampler.redraws >= 3, text  # 17, 2.4, 2021, 260: each refused at its first digit
    assert text != wanted
    checks = check_numbers(text, [SOURCE])
    assert all(c.grounded for c in checks), (text, [c for c in checks if not c.grounded])


def test_the_redraw_follows_the_models_preference_among_allowed_tokens(vocab: Vocab) -> None:
    """Refused "7" after "rose 1": of the allowed tokens the model's next favourite wins."""
    sampler = vocab.sampler(figure_grammar([SOURCE]))
    for token in vocab.tokens("Revenue rose 1"):
        sampler.choose(vocab.prefer(token))
    seven, three = vocab.tokens("7")[0], vocab.tokens("3")[0]
    logits = vocab.prefer(seven)
    logits[three] = 5.0  # second choice, and the call's "13"
    assert sampler.choose(logits) == three and sampler.redraws == 1


def test_the_server_runs_through_the_lazy_sampler() -> None:
    from llama_cpp import Llama

    install()
    install()  # idempotent
    assert getattr(Llama._init_sampler, "lazy_grammar", False)
    command = LocalLlamaServer(Path(__file__)).command()
    assert command[1:3] == ["-m", "app.llm.llama_server"]
