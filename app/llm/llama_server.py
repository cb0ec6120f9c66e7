"""The bundled model's server: llama-cpp-python's OpenAI-compatible server, with a request's
grammar (grounded decoding, core/llm/decoding.py) applied the way llama.cpp's own tools apply it.

llama-cpp-python puts the grammar in the sampler chain before every other sampler, so each
generated token runs the grammar over the whole vocabulary: ~0.1 s a token for a call's figure
grammar over SmolLM2's 49,152 tokens on 2 cores, where the model itself takes milliseconds
(a findebate report on the bundled model took 1.9x as long with the grammar as without). Here,
as in llama.cpp's `common_sampler_sample`, a token is first drawn without the grammar and only
that token is checked; the whole vocabulary is filtered only when the grammar refuses the draw,
and the token is drawn again from what it allows. The result follows the same distribution (a
refused draw is redrawn from the allowed tokens, in proportion to their probabilities), and
the grammar holds every token that is emitted.

    python -m app.llm.llama_server --model FILE ...   (llama_cpp.server's arguments)
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

TOKEN_DTYPE = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)


class LazyGrammarSampler:
    """Takes the place of llama-cpp-python's sampler chain (`sample(ctx, idx)`) for a request
    with a grammar: `chain` is the request's chain built without it."""

    def __init__(self, chain: Any, vocab: Any, grammar: str, root: str, n_vocab: int) -> None:
        from llama_cpp import llama_cpp as C

        self.C = C
        self.chain = chain
        self.grammar = C.llama_sampler_init_grammar(vocab, grammar.encode(), root.encode())
        if not self.grammar:
            raise ValueError("the grammar did not parse")
        self.n_vocab = n_vocab
        self.data = (C.llama_token_data * n_vocab)()
        self.view: np.ndarray[Any, Any] = np.frombuffer(memoryview(self.data), dtype=TOKEN_DTYPE)
        self.ids = np.arange(n_vocab, dtype=np.intc)
        self.one = (C.llama_token_data * 1)()
        self.redraws = 0  # tokens the grammar refused (read by the tests)
        self.tokens = 0

    def allowed(self, token: int) -> bool:
        C = self.C
        self.one[0] = C.llama_token_data(token, 0.0, 0.0)
        arr = C.llama_token_data_array(data=self.one, size=1, selected=-1, sorted=False)
        C.llama_sampler_apply(self.grammar, ctypes.byref(arr))
        return bool(self.one[0].logit != float("-inf"))

    def draw(self, logits: np.ndarray[Any, Any], *, grammar: bool) -> int:
        """One token from the chain over all `logits` (first filtered by the grammar when
        `grammar`); nothing is accepted into any sampler's state."""
        C = self.C
        self.view["id"] = self.ids
        self.view["logit"] = logits
        self.view["p"] = 0.0
        arr = C.llama_token_data_array(data=self.data, size=self.n_vocab, selected=-1, sorted=False)
        if grammar:
            C.llama_sampler_apply(self.grammar, ctypes.byref(arr))
        C.llama_sampler_apply(self.chain.sampler, ctypes.byref(arr))
        if not 0 <= arr.selected < arr.size:
            raise RuntimeError("the sampler chain selected no token")
        return int(arr.data[arr.selected].id)

    def choose(self, logits: np.ndarray[Any, Any]) -> int:
        """Draw, check, redraw under the grammar if refused; accept the token everywhere."""
        self.tokens += 1
        token = self.draw(logits, grammar=False)
        if not self.allowed(token):
            self.redraws += 1
            token = self.draw(logits, grammar=True)
        self.C.llama_sampler_accept(self.grammar, token)
        self.C.llama_sampler_accept(self.chain.sampler, token)
        return token

    def sample(self, ctx: Any, idx: int = -1) -> int:
        """llama-cpp-python's sampler interface (`Llama.sample`)."""
        ptr = self.C.llama_get_logits_ith(ctx.ctx, idx)
        if not ptr:
            raise RuntimeError(f"no logits at position {idx}")
        return self.choose(np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)))

    def close(self) -> None:
        if self.grammar:
            self.C.llama_sampler_free(self.grammar)
            self.grammar = None

    def __del__(self) -> None:
        self.close()


def install() -> None:
    """Route llama-cpp-python's requests with a grammar through LazyGrammarSampler."""
    from llama_cpp import Llama

    original = Llama._init_sampler
    if getattr(original, "lazy_grammar", False):
        return

    def _init_sampler(self: Any, *args: Any, grammar: Any = None, **kwargs: Any) -> Any:
        chain = original(self, *args, **{**kwargs, "grammar": None})
        if grammar is None:
            return chain
        vocab = self._model.vocab
        return LazyGrammarSampler(chain, vocab, grammar._grammar, grammar._root, self._n_vocab)

    _init_sampler.lazy_grammar = True  # type: ignore[attr-defined]
    Llama._init_sampler = _init_sampler  # type: ignore[method-assign]


def main() -> None:
    install()
    from llama_cpp.server.__main__ import main as serve

    serve()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
