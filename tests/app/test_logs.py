"""EDESK_LOG_FORMAT=json: every line a JSON object with the run id and node of the task that
logged it."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from app.logs import JsonFormatter
from app.settings import Settings
from tests.app.api_helpers import api, wait_status
from tests.conftest import SAMPLE


def test_json_lines_carry_run_id_and_node(tmp_path: Path) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        with api(tmp_path) as client:
            run_id = client.post(
                "/v1/runs", json={"transcript": SAMPLE.read_text(), "pipeline": "zero_shot"}
            ).json()["id"]
            wait_status(client, run_id, {"succeeded", "degraded"})
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    lines = [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
    assert lines and all({"time", "level", "logger", "message"} <= set(x) for x in lines)
    mine = [x for x in lines if x["run_id"] == run_id]
    assert any(x["message"].startswith(f"run {run_id} started") for x in mine)
    nodes = {x["node"] for x in mine if x["logger"] == "nodes.tracing"}
    assert {"facts", "synthesize", "fact_check"} <= nodes


def test_log_format_is_a_setting() -> None:
    assert Settings(log_format="json").log_format == "json"
    try:
        Settings(log_format="xml")  # type: ignore[arg-type]
    except ValueError as exc:
        assert "log_format" in str(exc)
    else:
        raise AssertionError("an unknown log format was accepted")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_validation_errors_never_log_the_input(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A validation error quotes the input it refused (a transcript, a model's report): every
    line, message and traceback, is scrubbed of it in both formats."""
    import logging

    from pydantic import BaseModel, ValidationError

    from app.logs import configure

    class Body(BaseModel):
        conviction: int

    secret = "-".join(("SEC", "RET"))  # not in this file's source, which tracebacks quote
    configure("info", fmt)  # type: ignore[arg-type]
    try:
        Body.model_validate({"conviction": f"{secret} transcript words " * 5})
    except ValidationError as exc:
        logging.getLogger("earnings_desk.test").exception("refused: %s", exc)
    err = capsys.readouterr().err
    assert secret not in err and "input_value=<redacted>" in err and "int_parsing" in err
