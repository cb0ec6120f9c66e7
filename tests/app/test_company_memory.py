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


def test_the_companies_routes_list_a_keys_companies_and_their_track_record(
    tmp_path: Path,
) -> None:
    a, b = {"Authorization": "Bearer key-a"}, {"Authorization": "Bearer key-b"}
    with api(tmp_path, api_keys="key-a,key-b") as client:
        _run(client, Q2, "Q2 2021", headers=a)
        _run(client, Q3, "Q3 2021", headers=a)
        listed = client.get("/v1/companies", headers=a).json()
        assert [(c["id"], c["newest_period"]) for c in listed] == [("ACME", "Q3 2021")]
        assert client.get("/v1/companies", headers=b).json() == []
        detail = client.get("/v1/companies/acme", headers=a).json()
        assert [c["period"] for c in detail["calls"]] == ["Q2 2021", "Q3 2021"]
        assert detail["periods"] == ["Q2 2021", "Q3 2021"]
        assert detail["track_record"]["revisions"][0]["verdict"] == "raised"
        missing = client.get("/v1/companies/ACME", headers=b)
        assert missing.status_code == 404 and "ACME" in missing.json()["detail"]


def test_ingest_then_history_in_any_order(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """`ingest` reads a folder into the local store (an ECTSum-style name gives the ticker and
    quarter); the track record is the same whichever call was ingested first; `history` prints
    it; a later call of the same period supersedes, and both stay listed."""
    import json as _json

    from app.cli import main

    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    results = []
    for order in (("ACME_q3_2021", "ACME_q2_2021"), ("ACME_q2_2021", "ACME_q3_2021")):
        monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "-".join(order)))
        for name in order:
            folder = tmp_path / f"in-{name}"
            folder.mkdir(exist_ok=True)
            (folder / f"{name}.txt").write_text(Q3 if "q3" in name else Q2, encoding="utf-8")
            assert main(["ingest", str(folder)]) == 0
        capsys.readouterr()
        assert main(["history", "ACME", "--json"]) == 0
        results.append(_json.loads(capsys.readouterr().out)["track_record"])
    assert results[0] == results[1] and results[0]["revisions"][0]["verdict"] == "raised"
    assert main(["history", "ACME"]) == 0
    shown = capsys.readouterr().out
    assert "Track record: 1 earlier call(s)" in shown and "raised" in shown
    assert main(["history", "NOPE"]) == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["ingest", str(empty)]) == 2
    assert "no ID.txt" in capsys.readouterr().err


def test_the_report_as_json_has_its_own_route(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        report = _run(client, Q2, "Q2 2021")
        got = client.get(f"/v1/runs/{report['id']}/report.json")
        assert got.status_code == 200 and got.headers["content-type"].startswith(
            "application/json")  # fmt: skip
        assert got.json()["pipeline"] == "facts" and got.json()["call"]["ticker"] == "ACME"
        assert (
            client.get("/v1/runs/0123456789abcdef0123456789abcdef/report.json").status_code == 404
        )


def test_the_chart_lines_sort_with_and_without_a_basis() -> None:
    """A company whose lines have a basis and lines with none (the walkthrough's 500 on ITW)."""
    from app.service.companies import series
    from core.facts.periods import parse_label
    from core.memory import CallRecord, Line

    def line(basis: str | None, period: str, value: float) -> Line:
        p = parse_label(period)
        assert p is not None
        return Line("revenue", basis, "change", "percent", p, value, value, f"{value}%", "q")

    q3, q4 = parse_label("Q3 2021"), parse_label("Q4 2021")
    assert q3 is not None and q4 is not None
    calls = [
        CallRecord("a", q3, results=(line(None, "Q3 2021", 8), line("organic", "Q3 2021", 6))),
        CallRecord("b", q4, results=(line(None, "Q4 2021", 9), line("organic", "Q4 2021", 7))),
    ]
    got = [(s.metric, s.basis, [p.value for p in s.results]) for s in series(calls)]
    assert got == [("revenue", None, [8, 9]), ("revenue", "organic", [6, 7])]


def test_a_company_is_found_by_the_name_its_calls_carry(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """A company linked by its ticker is found by its name too (the API and `history`); a name
    the calls of two tickers carry is refused naming both, never answered with one of them; the
    calls linked by a name (no ticker) are what that name finds; every listed id opens its own
    company."""
    from app.cli import main

    with api(tmp_path) as client:
        for period, text in (("Q2 2021", Q2), ("Q3 2021", Q3)):
            body = {"transcript": text, "pipeline": "facts", "ticker": "ACME",
                    "company": "Acme Widgets Inc.", "period": period}  # fmt: skip
            run_id = client.post("/v1/runs", json=body).json()["id"]
            wait_status(client, run_id, {"succeeded", "degraded", "failed"})
        by_name = client.get("/v1/companies/Acme%20Widgets")
        assert by_name.status_code == 200 and by_name.json()["id"] == "ACME"
        assert len(by_name.json()["calls"]) == 2
        # a second ticker whose calls carry the same name: the name names two companies
        body = {"transcript": Q3, "pipeline": "facts", "ticker": "ACMW",
                "company": "Acme Widgets", "period": "Q3 2021"}  # fmt: skip
        run_id = client.post("/v1/runs", json=body).json()["id"]
        wait_status(client, run_id, {"succeeded", "degraded", "failed"})
        both = client.get("/v1/companies/acme%20widgets")
        assert both.status_code == 409, both.text
        assert "ACME, ACMW" in both.json()["detail"]
        # calls stored without a ticker are linked by the name: the name finds them first
        body = {"transcript": Q2, "pipeline": "facts", "company": "Acme Widgets",
                "period": "Q2 2021"}  # fmt: skip
        run_id = client.post("/v1/runs", json=body).json()["id"]
        wait_status(client, run_id, {"succeeded", "degraded", "failed"})
        listed = {c["id"] for c in client.get("/v1/companies").json()}
        assert listed == {"ACME", "ACMW", "acme widgets"}
        for company_id in listed:  # every listed id opens its own company (the web page's link)
            assert client.get(f"/v1/companies/{company_id}").json()["id"] == company_id
        assert client.get("/v1/companies/ACME").json()["id"] == "ACME"  # the ticker: one
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "cli"))
    for period, text in (("Q2 2021", Q2), ("Q3 2021", Q3)):
        source = tmp_path / f"acme-{period[:2]}.txt"
        source.write_text(text, encoding="utf-8")
        assert main(["analyze", str(source), "--pipeline", "facts", "--ticker", "ACME",
                     "--company", "Acme Widgets", "--period", period,
                     "--out", str(tmp_path / "out" / period[:2])]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["history", "Acme Widgets"]) == 0
    assert "2 stored call(s)" in capsys.readouterr().out
