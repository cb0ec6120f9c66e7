"""The configuration reference (docs/configuration.md) is generated from the code; these tests fail
when the committed page and the code disagree. Regenerate with:

    .venv/bin/python -m scripts.gen_config_docs
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import Field

from app.settings import Settings
from core.options import RunOptions
from nodes.registry import ROLES
from scripts import gen_config_docs as gen

STALE = f"docs/configuration.md disagrees with the code; regenerate it with: {gen.COMMAND}"


def test_the_committed_page_is_what_the_code_generates() -> None:
    page = gen.PAGE.read_text(encoding="utf-8")
    assert gen.render(page) == page, STALE


def test_every_setting_option_and_role_is_on_the_page() -> None:
    page = gen.PAGE.read_text(encoding="utf-8")
    for name in Settings.model_fields:  # process settings and run options alike
        assert f"`EDESK_{name.upper()}` |" in page, name
    for name in RunOptions.model_fields:
        assert f"| `{name}` | `EDESK_{name.upper()}` |" in page, name
    for name in ROLES:
        assert f"| `{name}` | `nodes/" in page, name


def test_every_setting_says_what_it_does() -> None:
    """A setting without a description would be a blank line in the reference."""
    missing = [name for name, field in Settings.model_fields.items() if not field.description]
    assert not missing, f"give these Settings fields a description=...: {missing}"


def test_a_changed_field_makes_the_page_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a new setting, a new bound or a new role changes the rendered page."""
    page = gen.PAGE.read_text(encoding="utf-8")

    class Wider(Settings):
        brand_new_knob: int = Field(default=7, ge=1, le=9, description="a brand-new knob")

    monkeypatch.setattr(gen, "Settings", Wider)
    fresh = gen.render(page)
    assert fresh != page
    assert "| `EDESK_BRAND_NEW_KNOB` | int | `7` | >= 1, <= 9 | a brand-new knob |" in fresh
    monkeypatch.setattr(gen, "Settings", Settings)

    monkeypatch.setattr(gen, "ROLES", {**ROLES, "new_role": next(iter(ROLES.values()))})
    assert gen.render(page) != page


def test_check_mode_reports_a_stale_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "configuration.md"
    page = gen.PAGE.read_text(encoding="utf-8")
    stale.write_text(page.replace("| `EDESK_DATA_DIR` |", "| `EDESK_OLD_DIR` |"), encoding="utf-8")
    monkeypatch.setattr(gen, "PAGE", stale)
    assert gen.main(["--check"]) == 1
    assert gen.COMMAND in capsys.readouterr().err
    assert gen.main([]) == 0
    assert stale.read_text(encoding="utf-8") == page
    assert gen.main(["--check"]) == 0


def test_a_page_without_its_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="no block"):
        gen.render("# Configuration\n")


LIMIT_WORDS = ("max_", "key_", "_timeout", "_bytes", "_lines", "_attempts", "budget",
               "retention_", "min_interval", "lease_", "_words")  # fmt: skip
NOT_LIMITS = {"max_conviction_shift", "chunk_words"}  # a debate rule and the RAG chunk size


def test_every_limit_setting_is_in_the_limits_table() -> None:
    """docs/operations.md's "Every limit and its setting" names each setting that bounds what a
    request, a run or the service may do, and what happens past it (issue 38)."""
    ops = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text("utf-8")
    table = ops.split("### Every limit and its setting", 1)[1].split("\n#", 1)[0]
    limits = [n for n in Settings.model_fields
              if any(w in n for w in LIMIT_WORDS) and n not in NOT_LIMITS]  # fmt: skip
    assert len(limits) > 15
    missing = [f"EDESK_{n.upper()}" for n in limits if f"`EDESK_{n.upper()}`" not in table]
    assert not missing, f"limits not in docs/operations.md's table: {missing}"
