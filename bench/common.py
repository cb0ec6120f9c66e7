"""Shared bits for benchmarks: locating ../shared and printing the final JSON line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

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
