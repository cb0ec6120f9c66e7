"""The README and the documentation site (mkdocs.yml, docs/) keep up with the code: every
pipeline has its README line and its page, the page draws the graph from the shape tests'
snapshot, and the README's first section is the two commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphs import PIPELINES

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MKDOCS = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_readme_opens_with_the_two_commands() -> None:
    sections = re.split(r"^## ", README, flags=re.M)
    assert sections[1].startswith("Set up and run")
    blocks = re.findall(r"```bash\n(.*?)\n```", sections[1], re.S)
    assert blocks == [
        "bash scripts/setup.sh && .venv/bin/earnings-desk analyze samples/northwind_q2_2026.md "
        "--out reports/demo",
        "bash scripts/test.sh",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "exec bash scripts/test.sh" in ci


def test_the_test_command_builds_the_docs_strictly() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    steps = [line.split()[0] for line in script.splitlines() if line.startswith(".venv/bin/")]
    assert steps.index(".venv/bin/mypy") < steps.index(".venv/bin/mkdocs")
    assert steps.index(".venv/bin/mkdocs") < steps.index(".venv/bin/python")
    build = next(line for line in script.splitlines() if line.startswith(".venv/bin/mkdocs"))
    assert "--strict" in build
    assert "--quiet" not in build and " -q" not in build  # quiet hides what strict counts


def test_the_readme_stays_short() -> None:
    assert len(README.encode("utf-8")) < 12_000, "the README is a summary; details go to docs/"


@pytest.mark.parametrize("name", list(PIPELINES))
def test_every_pipeline_has_its_line_and_its_page(name: str) -> None:
    page = ROOT / "docs" / "pipelines" / f"{name}.md"
    assert page.exists(), f"add docs/pipelines/{name}.md"
    assert f"[`{name}`](docs/pipelines/{name}.md)" in README, f"add {name} to the README's table"
    assert f"pipelines/{name}.md" in MKDOCS, f"add {name}'s page to mkdocs.yml's nav"
    snapshot = f'--8<-- "tests/graphs/snapshots/{name}.mmd"'
    assert snapshot in page.read_text(encoding="utf-8"), "draw the graph from its snapshot"


def test_every_page_is_in_the_nav() -> None:
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    missing = sorted(p for p in pages if p not in MKDOCS)
    assert not missing, f"pages outside mkdocs.yml's nav: {missing}"


def _layout() -> str:
    section = README.split("## Layout", 1)[1]
    return section.split("```", 2)[1]


def test_the_layout_lists_what_exists_and_only_that() -> None:
    """Every folder the README's Layout names exists; every package folder, app/ module and core/
    module is named there (a new or moved one shows up as a failing line to write)."""
    layout = _layout()
    parent = ""
    for line in layout.splitlines():
        m = re.match(r"^( *)([\w.]+/)", line)
        if not m:
            continue
        name = m.group(2)
        path = ROOT / name if not m.group(1) else ROOT / parent / name
        if not m.group(1):
            parent = name
        assert path.is_dir(), f"the README's Layout names {path.relative_to(ROOT)}, which is gone"
    words = set(re.findall(r"[\w.]+", layout.lower()))
    for package in ("app", "core"):
        for sub in sorted((ROOT / package).iterdir()):
            if (sub / "__init__.py").exists():
                assert f"{sub.name}/" in layout, f"add {package}/{sub.name}/ to the README's Layout"
    for module in sorted((ROOT / "app").glob("*.py")):
        if module.stem != "__init__":
            assert module.name in words, f"add app/{module.name} to the README's Layout"
    for module in sorted((ROOT / "core").glob("*.py")):
        if module.stem != "__init__":
            assert module.stem in words or module.name in words, f"add core/{module.name}"
    for top in ("app", "graphs", "nodes", "core", "prompts", "tests", "docs", "samples", "bench"):
        assert f"\n{top}/" in "\n" + layout, f"add {top}/ to the README's Layout"


def test_every_link_in_the_readme_leads_to_a_file() -> None:
    """mkdocs checks the site's links; the README is outside the site, so its links are here."""
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert local, "the README links to the documentation"
    broken = [t for t in local if not (ROOT / t).exists()]
    assert not broken, f"README links to missing files: {broken}"
