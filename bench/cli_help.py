"""How long `earnings-desk --help` takes, a new process each time (issue 41: under 1 s). Median of
`--runs` runs; JSON on the last line.

    .venv/bin/python -m bench.cli_help [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from bench.common import REPO, emit


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.cli_help", description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    exe = REPO / ".venv" / "bin" / "earnings-desk"
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run([str(exe), "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    emit({"runs": args.runs, "help_seconds_median": round(statistics.median(times), 3),
          "help_seconds_max": round(max(times), 3)})  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
