"""The ECTSum fixture skips off CI and fails on CI when ../shared is missing (CI has it)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tests.conftest as conftest


def test_missing_ectsum_fails_in_ci_and_skips_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "ECTSUM", tmp_path / "nope")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI runs with ../shared"):
        conftest.ectsum_dir()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="clone with ../shared"):
        conftest.ectsum_dir()
    monkeypatch.setattr(conftest, "ECTSUM", tmp_path)
    assert conftest.ectsum_dir() == tmp_path
