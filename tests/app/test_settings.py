from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.llm.factory import ModelFactory, role_spec
from app.settings import Settings
from nodes.registry import ROLES


def test_defaults_are_offline_local() -> None:
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.provider == "local" and s.embeddings == "default"
    assert (s.temperature, s.top_p, s.frequency_penalty) == (0.6, 0.85, 0.1)
    assert s.budget("leader", "local") == ROLES["leader"].local == 600
    assert s.budget("leader", "openai") == ROLES["leader"].remote == 3500
    assert ROLES["synthesizer"].local < ROLES["synthesizer"].remote


def test_env_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDESK_PROVIDER", "openai")
    monkeypatch.setenv("EDESK_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("EDESK_ROLE_MODELS", '{"leader": "openai:gpt-4o"}')
    monkeypatch.setenv("EDESK_MAX_TOKENS", '{"leader": 999}')
    s = Settings()
    assert role_spec(s, "leader") == ("openai", "gpt-4o")
    assert role_spec(s, "trust") == ("openai", "gpt-4o-mini")
    assert s.budget("leader", "openai") == 999


@pytest.mark.parametrize(
    "kwargs",
    [
        {"temperature": 3},
        {"top_p": 0},
        {"max_concurrency": 0},
        {"role_models": {"cfo": "openai:gpt-4o"}},
        {"role_models": {"leader": "anthropic:x"}},
        {"max_tokens": {"leader": 1}},
        {"provider": "openai"},  # no model
        {"parse_retries": -1},
    ],
)
def test_nonsense_rejected(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Settings(**kwargs)  # type: ignore[arg-type]


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
