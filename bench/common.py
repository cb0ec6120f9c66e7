"""Shared bits for benchmarks: locating ../shared and printing the final JSON line."""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.service.engine import Engine
    from core.fake_llm import FakeModels

REPO = Path(__file__).resolve().parents[1]
ECTSUM = REPO.parent / "shared" / "data" / "ectsum"


def ectsum_file(name: str) -> Path:
    path = ECTSUM / name
    if not path.is_file():
        print(f"skipped: {path} not found (clone with ../shared beside the repo)")
        print(json.dumps({"skipped": True, "reason": f"{path} missing"}))
        sys.exit(0)
    return path


def emit(figures: dict[str, Any]) -> None:
    """Human-readable lines, then the figures as one JSON object on the last line."""
    for key, value in figures.items():
        print(f"{key:>32}: {value}")
    print(json.dumps(figures, sort_keys=True))


@asynccontextmanager
async def fake_engine(models: FakeModels) -> AsyncIterator[Engine]:
    """An engine on `models` with fake embeddings in a temporary data folder."""
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from app.service.engine import Engine
    from app.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), provider="fake")
        async with Engine.open(
            settings,
            models=models,
            embeddings=DeterministicFakeEmbedding(size=32),
            embedding_name="fake",
        ) as engine:
            yield engine
