#!/usr/bin/env bash
# The test command (README, .ci/run): install everything, then ruff, mypy, the documentation
# site (mkdocs.yml; --strict: a broken link, anchor or missing page fails) and the whole pytest
# suite, including the tests marked local_model/embeddings that use the real bundled models.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy .
export NO_MKDOCS_2_WARNING=1  # mkdocs-material's banner about its successor, not a problem here
# no --quiet: it hides the warnings --strict counts, and the build passes with broken links
.venv/bin/mkdocs build --strict --site-dir site  # site/ is git-ignored
.venv/bin/python -m pytest "$@"
