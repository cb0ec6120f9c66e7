"""Writing a generated docs page, or checking it is current (the generators' shared ending)."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(page: Path, fresh: str, command: str, *, check: bool) -> int:
    """`check`: exit status 1 (and say how to regenerate) when `page` is not `fresh`; otherwise
    write `page` when it differs."""
    current = page.read_text(encoding="utf-8") if page.is_file() else ""
    if check:
        if fresh != current:
            print(f"{page} is stale; run: {command}", file=sys.stderr)
            return 1
        return 0
    if fresh != current:
        page.write_text(fresh, encoding="utf-8")
        print(f"wrote {page}")
    return 0
