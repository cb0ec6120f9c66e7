"""Where a run's disk goes: three runs of a ~1 MB call each through the API (fake model, fake
384-dimension embeddings: the bundled model's size on disk), per pipeline; the data folder by
part while the runs are stored, then after DELETE of each.

    .venv/bin/python -m bench.disk [--mb 1.0] [--pipelines zero_shot,findebate]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from bench.common import emit

PARTS = {"runs": "runs.sqlite", "checkpoints": "checkpoints.sqlite", "index": "chroma"}


def transcript(seed: int, size: int) -> str:
    rnd = random.Random(seed)
    words = [
        "revenue",
        "margin",
        "growth",
        "quarter",
        "guidance",
        "customers",
        "demand",
        "pricing",
        "cost",
    ]
    out, n = ["Operator: Welcome.\n\nJane Doe -- Chief Executive Officer: "], 0
    while n < size:
        line = " ".join(rnd.choice(words) for _ in range(12))
        line += f" rose {rnd.randint(1, 99)}% to ${rnd.randint(1, 999)} million.\n\n"
        out.append(line)
        n += len(line)
    return "".join(out)[:size]


def sizes(data: Path) -> dict[str, float]:
    """MB by part (each SQLite file with its -wal/-shm; the index folder whole)."""
    out = {}
    for part, name in PARTS.items():
        files = (data / name).rglob("*") if (data / name).is_dir() else data.glob(f"{name}*")
        out[part] = round(sum(p.stat().st_size for p in files if p.is_file()) / 1e6, 2)
    out["total"] = round(sum(p.stat().st_size for p in data.rglob("*") if p.is_file()) / 1e6, 2)
    return out


def measure(pipeline: str, size: int) -> dict[str, object]:
    from fastapi.testclient import TestClient
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from app.api import create_app
    from app.settings import Settings
    from core.llm.fake import FakeModels, Script, canned

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        app = create_app(
            Settings(data_dir=data, provider="fake", max_transcript_bytes=size + 1000),
            models=FakeModels(default=Script.of(default=canned)),
            embeddings=DeterministicFakeEmbedding(size=384),
            embedding_name="fake384",
        )
        with TestClient(app) as client:
            empty = sizes(data)
            ids = []
            for seed in range(3):
                body = {"transcript": transcript(seed, size), "pipeline": pipeline}
                ids.append(client.post("/v1/runs", json=body).json()["id"])
            for run_id in ids:
                while client.get(f"/v1/runs/{run_id}").json()["status"] in ("queued", "running"):
                    time.sleep(0.1)
            stored = sizes(data)
            t0 = time.perf_counter()
            for run_id in ids:
                client.delete(f"/v1/runs/{run_id}")
            delete_s = (time.perf_counter() - t0) / len(ids)
            deleted = sizes(data)
    return {"empty": empty, "stored": stored, "deleted": deleted, "delete_s": round(delete_s, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.0, help="size of each call in MB")
    parser.add_argument("--pipelines", default="zero_shot,findebate")
    args = parser.parse_args()
    size = int(args.mb * 1_000_000) - 10_000  # under the default 1 MB transcript limit
    figures: dict[str, object] = {"call_mb": round(size / 1e6, 2), "runs": 3}
    for pipeline in args.pipelines.split(","):
        result = measure(pipeline, size)
        for key, value in result.items():
            figures[f"{pipeline}.{key}"] = value
    emit(figures)


if __name__ == "__main__":
    main()
