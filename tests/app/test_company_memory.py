"""Company memory through the service (issue 40): a finished run keeps its call under its company,
the next call of the company reads it (the report's track record and the models' data block), a
key sees only its own calls, a deleted run takes its call with it, and evaluations neither read
nor add calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.api_helpers import api, wait_status

Q2 = (
    "Revenue was $590 million, up 6% year over year. For the full year we expect revenue of "
    "$2.35 billion to $2.42 billion.\n"
)
Q3 = (
    "Revenue was $612 million, up 8% year over year. We now expect full-year revenue of "
    "$2.40 billion to $2.46 billion.\n"
)


def _run(
    client: Any, text: str, period: str, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    body = {"transcript": text, "pipeline": "facts", "ticker": "ACME", "period": period}
    resp = client.post("/v1/runs", json=body, headers=headers or {})
    assert resp.status_code in (200, 201, 202), resp.text
    run_id = resp.json()["id"]
    done = wait_status(client, run_id, {"succeeded", "degraded", "failed"}, headers=headers or {})
    assert done["status"] in ("succeeded", "degraded"), done
    report: dict[str, Any] = client.get(f"/v1/runs/{run_id}", headers=headers or {}).json()[
        "report"
    ]
    report["id"] = run_id
    return report


def test_the_next_call_of_a_company_reads_the_one_before(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        first = _run(client, Q2, "Q2 2021")
        assert first["track_record"] is None  # nothing stored before it
        second = _run(client, Q3, "Q3 2021")
        record = second["track_record"]
        assert record is not None and record["earlier_calls"] == 1
        assert [(r["metric"], r["period"], r["verdict"]) for r in record["revisions"]] == [
            ("revenue", "FY 2021", "raised")]  # fmt: skip
        assert "## Track record: 1 earlier call(s) of this company" in second["markdown"]
        # the same call again is not "earlier" than itself, and supersedes nothing else
        again = _run(client, Q3, "Q3 2021")
        assert again["track_record"]["earlier_calls"] == 1
        # deleting the first run takes its call with it
        assert client.delete(f"/v1/runs/{first['id']}").status_code in (200, 202, 204)
        after = _run(client, Q3, "Q3 2021")
        assert after["track_record"] is None


def test_a_key_reads_only_its_own_calls(tmp_path: Path) -> None:
    a, b = {"Authorization": "Bearer key-a"}, {"Authorization": "Bearer key-b"}
    with api(tmp_path, api_keys="key-a,key-b") as client:
        _run(client, Q2, "Q2 2021", headers=a)
        assert _run(client, Q3, "Q3 2021", headers=b)["track_record"] is None
        assert _run(client, Q3, "Q3 2021", headers=a)["track_record"]["earlier_calls"] == 1
