#!/usr/bin/env bash
# The test command (README, .ci/run): install everything, then ruff, mypy and the whole pytest
# suite, including the tests marked local_model/embeddings that use the real bundled models.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy .
.venv/bin/python -m pytest "$@"
