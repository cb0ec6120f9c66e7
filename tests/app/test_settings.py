from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.cli import EXIT_USAGE, main
from app.llm.factory import ConfigError, ModelFactory, check_roles, completion_budget, role_spec
from app.settings import Settings
from nodes.registry import ROLES


def test_defaults_are_offline_local() -> None:
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.provider == "local" and s.embeddings == "default"
    assert (s.temperature, s.top_p, s.frequency_penalty) == (0.6, 0.85, 0.1)
    assert completion_budget(s, "leader", "local") == ROLES["leader"].local == 600
    assert completion_budget(s, "leader", "openai") == ROLES["leader"].remote == 3500
    assert ROLES["synthesizer"].local < ROLES["synthesizer"].remote


def test_env_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDESK_PROVIDER", "openai")
    monkeypatch.setenv("EDESK_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("EDESK_ROLE_MODELS", '{"leader": "openai:gpt-4o"}')
    monkeypatch.setenv("EDESK_MAX_TOKENS", '{"leader": 999}')
    s = Settings()
    assert role_spec(s, "leader") == ("openai", "gpt-4o")
    assert role_spec(s, "trust") == ("openai", "gpt-4o-mini")
    assert completion_budget(s, "leader", "openai") == 999


@pytest.mark.parametrize(
    "kwargs",
    [
        {"temperature": 3},
        {"top_p": 0},
        {"max_concurrency": 0},
        {"role_models": {"leader": "anthropic:x"}},
        {"max_tokens": {"leader": 1}},
        {"provider": "openai"},  # no model
        {"parse_retries": -1},
    ],
)
def test_nonsense_rejected(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Settings(**kwargs)  # type: ignore[arg-type]


def test_settings_import_nothing_from_nodes() -> None:
    """Settings are a leaf: importing them loads no module under nodes/ (the roles they name
    are checked by the model factory)."""
    probe = (
        "import sys, app.settings; "
        "bad = sorted(m for m in sys.modules if m == 'nodes' or m.startswith('nodes.')); "
        "assert not bad, bad"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("setting", "value"),
    [("role_models", {"cfo": "openai:gpt-4o"}), ("max_tokens", {"leader": 900, "cfo": 100})],
)
def test_unknown_role_refused_at_start_up(setting: str, value: dict[str, object]) -> None:
    s = Settings(provider="fake", **{setting: value})  # type: ignore[arg-type]
    expected = rf"EDESK_{setting.upper()}: unknown role 'cfo'; the roles are: .*leader"
    with pytest.raises(ConfigError, match=expected):
        check_roles(s)
    with pytest.raises(ConfigError, match=expected):
        ModelFactory(s)  # the service's start-up (Engine.open) builds it first


def test_unknown_role_is_a_cli_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EDESK_ROLE_MODELS", '{"cfo": "fake:x"}')
    for command in (["serve"], ["analyze", "nope.md"]):
        assert main(command) == EXIT_USAGE
        err = capsys.readouterr().err
        assert "EDESK_ROLE_MODELS: unknown role 'cfo'" in err, err


def test_openai_factory_passes_generation_settings() -> None:
    s = Settings(
        provider="openai",
        model="m",
        openai_base_url="http://127.0.0.1:9/v1",
        role_models={"leader": "openai:big"},
    )
    f = ModelFactory(s)
    h = f.chat("trust")
    assert h.name == "openai:m"
    assert h.model.temperature == 0.6 and h.model.top_p == 0.85  # type: ignore[attr-defined]
    assert h.model.extra_body == {"max_tokens": ROLES["trust"].remote}  # type: ignore[attr-defined]
    assert f.chat("leader").name == "openai:big"
    assert f.chat("trust") is h  # cached
    assert h.limiter is f.chat("leader").limiter  # one limit per provider


def test_openai_without_key_or_url_is_a_clear_error() -> None:
    from app.llm.factory import ConfigError

    f = ModelFactory(Settings(provider="openai", model="m"))
    with pytest.raises(ConfigError, match="EDESK_OPENAI_API_KEY"):
        f.chat("leader")


def test_writer_feedback_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDESK_WRITER_VARIANT", "ensemble")
    monkeypatch.setenv("EDESK_ENSEMBLE_VARIANTS", "simple_writer, advanced_feedback")
    s = Settings()
    assert s.writer_variant == "ensemble"
    assert s.ensemble_variants == ("simple_writer", "advanced_feedback")
    monkeypatch.setenv("EDESK_ENSEMBLE_VARIANTS", "simple_writer,nope")
    with pytest.raises(ValidationError, match="ensemble_variants.1") as bad:
        Settings()
    assert "'nope'" in str(bad.value)


def test_comma_lists_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every comma-list setting reads `a, b,,c` as plain text (not JSON), from the environment
    and from a .env file."""
    monkeypatch.setenv("EDESK_API_KEYS", "key-a, key-b,,")
    monkeypatch.setenv("EDESK_CORS_ORIGINS", "http://a.example ,http://b.example")
    monkeypatch.setenv("EDESK_EVAL_DIRS", f"{tmp_path}/one,{tmp_path}/two")
    monkeypatch.setenv("EDESK_ENSEMBLE_VARIANTS", "simple_writer,advanced_writer")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert [k.get_secret_value() for k in s.api_keys] == ["key-a", "key-b"]
    assert s.cors_origins == ("http://a.example", "http://b.example")
    assert s.eval_dirs == (tmp_path / "one", tmp_path / "two")
    assert s.eval_dir_list() == [(tmp_path / "one").resolve(), (tmp_path / "two").resolve()]
    assert s.ensemble_variants == ("simple_writer", "advanced_writer")
    for name in ("EDESK_API_KEYS", "EDESK_CORS_ORIGINS", "EDESK_EVAL_DIRS"):
        monkeypatch.delenv(name)
    monkeypatch.delenv("EDESK_ENSEMBLE_VARIANTS")
    env = tmp_path / ".env"
    env.write_text(
        "EDESK_API_KEYS=k1,k2\nEDESK_CORS_ORIGINS=http://c.example\nEDESK_EVAL_DIRS=/srv/calls\n"
        "EDESK_ENSEMBLE_VARIANTS=simple_feedback, advanced_feedback\n",
        encoding="utf-8",
    )
    s = Settings(_env_file=env)  # type: ignore[call-arg]
    assert [k.get_secret_value() for k in s.api_keys] == ["k1", "k2"]
    assert s.cors_origins == ("http://c.example",)
    assert s.eval_dirs == (Path("/srv/calls"),)
    assert s.ensemble_variants == ("simple_feedback", "advanced_feedback")
    unset = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (unset.api_keys, unset.cors_origins, unset.eval_dirs) == ((), (), ())


def test_keys_are_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key's value is in the settings' repr, str or JSON; each reader unwraps it where used."""
    monkeypatch.setenv("EDESK_API_KEYS", "sekrit-api-1,sekrit-api-2")
    monkeypatch.setenv("EDESK_ALPHAVANTAGE_API_KEY", "sekrit-av")
    monkeypatch.setenv("EDESK_OPENAI_API_KEY", "sekrit-openai")
    monkeypatch.setenv("EDESK_DATABASE_URL", "postgresql://u:sekrit-pw@db/x")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.alphavantage_api_key is not None
    assert s.alphavantage_api_key.get_secret_value() == "sekrit-av"
    for text in (repr(s), str(s)):
        assert "sekrit" not in text, text
    dumped = s.model_dump_json()  # a URL's password is kept out of the repr only
    assert (
        "sekrit-api" not in dumped and "sekrit-av" not in dumped and "sekrit-openai" not in dumped
    )


def test_unset_or_empty_alphavantage_key_means_no_key() -> None:
    assert not Settings(_env_file=None).alphavantage_api_key  # type: ignore[call-arg]
    assert not Settings(alphavantage_api_key="").alphavantage_api_key  # type: ignore[arg-type]
