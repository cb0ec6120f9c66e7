"""The HTTP API as a frontend uses it: start, stream, read, list, cancel, delete."""

from __future__ import annotations

from pathlib import Path

from nodes.specialists import SPECIALISTS
from tests.app.api_helpers import api, read_sse, wait_status
from tests.conftest import SAMPLE

TEXT = SAMPLE.read_text()


def test_post_then_poll_then_report(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        resp = client.post("/v1/runs", json={"transcript": TEXT, "company": "Northwind"})
        assert resp.status_code == 202
        created = resp.json()
        assert (
            created["status"] == "queued" and resp.headers["location"] == created["links"]["self"]
        )
        run = wait_status(client, created["id"], {"succeeded"})
        assert run["report"]["pipeline"] == "findebate"
        assert [r["horizon"] for r in run["report"]["recommendations"]] == ["1d", "1w", "1m"]
        assert run["call"]["company"] == "Northwind"
        assert run["tokens"]["total"] > 0 and run["tokens"]["total"] == (
            run["tokens"]["prompt"] + run["tokens"]["completion"]
        )
        assert {n["node"] for n in run["nodes"]} >= set(SPECIALISTS)
        md = client.get(created["links"]["report_md"])
        assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
        assert "## Recommendations" in md.text


def test_wait_true_returns_the_finished_run(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        resp = client.post("/v1/runs?wait=true", json={"transcript": TEXT, "pipeline": "zero_shot"})
        assert resp.status_code == 200
        assert resp.json()["status"] == "succeeded" and resp.json()["report"]


def test_post_stream_event_order(tmp_path: Path) -> None:
    with api(tmp_path, latency=0.02) as client:
        events = read_sse(client, "POST", "/v1/runs/stream", json={"transcript": TEXT})
    kinds = [(e["event"], e["data"].get("node")) for e in events]
    assert kinds[0][0] == "run_started" and kinds[-1][0] == "run_finished"
    assert [int(e["id"]) for e in events] == list(range(1, len(events) + 1))
    starts = [kinds.index(("node_started", r)) for r in SPECIALISTS]
    finishes = [kinds.index(("node_finished", r)) for r in SPECIALISTS]
    assert max(starts) < min(finishes)  # the five start before any finishes
    final = events[-1]["data"]
    assert final["status"] == "succeeded" and final["report_url"].endswith("/report.md")
    finished = [e["data"] for e in events if e["event"] == "node_finished"]
    assert all(f["duration_ms"] is not None for f in finished)
    assert next(f for f in finished if f["node"] == "synthesize")["tokens"] > 0
    run_ids = {e["data"]["run_id"] for e in events}
    assert len(run_ids) == 1


def test_replay_from_last_event_id(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        run_id = client.post("/v1/runs", json={"transcript": TEXT}).json()["id"]
        wait_status(client, run_id, {"succeeded"})
        everything = read_sse(client, "GET", f"/v1/runs/{run_id}/events")
        rest = read_sse(client, "GET", f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": "5"})
        also = read_sse(client, "GET", f"/v1/runs/{run_id}/events?after=5")
        bad = client.get(f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": "x"})
    assert rest == everything[5:] == also
    assert bad.status_code == 400 and "Last-Event-ID" in bad.json()["detail"]


def test_concurrent_streams_never_mix(tmp_path: Path) -> None:
    with api(tmp_path, latency=0.01, max_runs=2) as client:
        a = client.post("/v1/runs", json={"transcript": TEXT}).json()["id"]
        b = client.post(
            "/v1/runs", json={"transcript": TEXT + "\nExtra line.", "pipeline": "multi_agent"}
        ).json()["id"]
        ea = read_sse(client, "GET", f"/v1/runs/{a}/events")
        eb = read_sse(client, "GET", f"/v1/runs/{b}/events")
    assert {e["data"]["run_id"] for e in ea} == {a}
    assert {e["data"]["run_id"] for e in eb} == {b}
    assert ea[-1]["event"] == eb[-1]["event"] == "run_finished"
    assert not any(e["data"].get("node") == "trust" for e in eb)  # multi_agent has no debate


def test_list_and_filter(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        ids = [
            client.post("/v1/runs?wait=true", json={"transcript": TEXT, "pipeline": p}).json()["id"]
            for p in ("zero_shot", "zero_shot", "standard_rag")
        ]
        page = client.get("/v1/runs?limit=2").json()
        assert page["total"] == 3 and len(page["items"]) == 2
        assert page["items"][0]["id"] == ids[-1]  # newest first
        assert client.get("/v1/runs?pipeline=zero_shot").json()["total"] == 2
        assert client.get("/v1/runs?status=failed").json()["total"] == 0
        assert client.get("/v1/runs?status=bogus").status_code == 422
        bogus = client.get("/v1/runs?pipeline=bogus")  # a filter that cannot match: refused
        assert bogus.status_code == 422
        assert bogus.json()["detail"][0]["loc"] == ["query", "pipeline"]
        assert client.get("/v1/runs?limit=0").status_code == 422


def test_cancel_running_run_at_node_boundary(tmp_path: Path) -> None:
    with api(tmp_path, latency=0.3) as client:
        run_id = client.post("/v1/runs", json={"transcript": TEXT}).json()["id"]
        wait_status(client, run_id, {"running"})
        resp = client.post(f"/v1/runs/{run_id}/cancel")
        assert resp.status_code == 200
        run = wait_status(client, run_id, {"cancelled"})
        events = read_sse(client, "GET", f"/v1/runs/{run_id}/events")
    assert run["reason"] == "cancelled" and run["report"] is None
    assert events[-1]["data"]["status"] == "cancelled"


def test_cancel_queued_run_at_once(tmp_path: Path) -> None:
    with api(tmp_path, latency=0.3, max_runs=1) as client:
        first = client.post("/v1/runs", json={"transcript": TEXT}).json()["id"]
        queued = client.post("/v1/runs", json={"transcript": TEXT}).json()["id"]
        assert client.get(f"/v1/runs/{queued}").json()["status"] == "queued"
        resp = client.post(f"/v1/runs/{queued}/cancel").json()
        assert resp["status"] == "cancelled"
        client.post(f"/v1/runs/{first}/cancel")
        wait_status(client, first, {"cancelled"})
        events = read_sse(client, "GET", f"/v1/runs/{queued}/events")
    assert [e["event"] for e in events] == ["run_finished"]


def test_delete(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        run_id = client.post("/v1/runs?wait=true", json={"transcript": TEXT}).json()["id"]
        assert client.delete(f"/v1/runs/{run_id}").status_code == 204
        assert client.get(f"/v1/runs/{run_id}").status_code == 404
        assert client.get(f"/v1/runs/{run_id}/events").status_code == 404
        assert client.delete(f"/v1/runs/{run_id}").status_code == 404


def test_budget_stops_the_run(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        run = client.post(
            "/v1/runs?wait=true", json={"transcript": TEXT, "options": {"token_budget": 50}}
        ).json()
    assert run["status"] == "failed" and run["reason"] == "budget"
    assert "token budget" in run["error"]
    assert run["tokens"]["total"] >= 50  # what was done is counted


def test_report_md_before_finish_is_409(tmp_path: Path) -> None:
    with api(tmp_path, latency=0.3) as client:
        run_id = client.post("/v1/runs", json={"transcript": TEXT}).json()["id"]
        resp = client.get(f"/v1/runs/{run_id}/report.md")
        assert resp.status_code == 409 and "no report" in resp.json()["detail"]
        client.post(f"/v1/runs/{run_id}/cancel")


def test_cost_when_prices_configured(tmp_path: Path) -> None:
    prices = {"fake:synthesizer": {"prompt": 1000.0, "completion": 2000.0}}
    with api(tmp_path, prices=prices) as client:
        run = client.post(
            "/v1/runs?wait=true", json={"transcript": TEXT, "pipeline": "zero_shot"}
        ).json()
        detail = client.get(f"/v1/runs/{run['id']}").json()
    assert run["cost_usd"] is not None and run["cost_usd"] > 0
    # exactly the synthesizer's tokens at its prices (per million), nothing for unpriced roles
    used = [t["usage"]["fake:synthesizer"] for t in detail["report"]["trace"]
            if "fake:synthesizer" in t["usage"]]  # fmt: skip
    prompt, completion = (sum(u[0] for u in used), sum(u[1] for u in used))
    assert prompt > 0 and completion > 0
    assert run["cost_usd"] == round((prompt * 1000.0 + completion * 2000.0) / 1e6, 6)


def test_cost_formula_exact() -> None:
    """A known token count at known prices: 1,234 prompt and 567 completion tokens at $2.50 and
    $10 per million, plus an unpriced model that costs nothing."""
    from datetime import UTC, datetime

    from app.service.runs import cost_of
    from core.contract import NodeTrace

    at = datetime(2026, 11, 23, tzinfo=UTC)
    trace = [
        NodeTrace(node="a", started_at=at, ended_at=at, duration_ms=0,
                  usage={"openai:gpt-4o": (1234, 567), "local:x": (10**6, 10**6)}),
        NodeTrace(node="b", started_at=at, ended_at=at, duration_ms=0,
                  usage={"openai:gpt-4o": (1000, 0)}),
    ]  # fmt: skip
    prices = {"openai:gpt-4o": {"prompt": 2.5, "completion": 10.0}}
    assert cost_of(trace, prices) == round((2234 * 2.5 + 567 * 10.0) / 1e6, 6) == 0.011255
    assert cost_of(trace, {}) is None


def test_restart_starts_queued_and_honours_cancel(tmp_path: Path) -> None:
    """Runs a dead process left queued start on the next start; a cancel asked before the
    restart is honoured at the first node boundary."""
    import asyncio

    from app.storage import RunInput, RunRecord, Store, now
    from core.options import RunOptions

    async def seed() -> None:
        store = await Store.open(None, tmp_path / "data" / "runs.sqlite")
        for run_id, cancel in (("left-queued", False), ("left-cancelling", True)):
            await store.create(
                RunRecord(
                    id=run_id,
                    pipeline="zero_shot",
                    status="queued",
                    created_at=now(),
                    input=RunInput(transcript=TEXT, options=RunOptions()),
                )
            )
            await store.update(run_id, status="running", cancel_requested=cancel)
        await store.close()

    asyncio.run(seed())
    with api(tmp_path) as client:
        done = wait_status(client, "left-queued", {"succeeded"})
        cancelled = wait_status(client, "left-cancelling", {"cancelled"})
    assert done["report"]["recommendations"]
    assert cancelled["reason"] == "cancelled"


def test_token_events_when_asked(tmp_path: Path) -> None:
    body = {"transcript": TEXT, "pipeline": "zero_shot", "options": {"stream_tokens": True}}
    with api(tmp_path, latency=0.05) as client:
        events = read_sse(client, "POST", "/v1/runs/stream?tokens=true", json=body)
        replay = read_sse(client, "GET", f"/v1/runs/{events[0]['data']['run_id']}/events")
    tokens = [e for e in events if e["event"] == "token"]
    writers = {"synthesize", "fact_check"}  # the canned figures are not in TEXT: corrected
    assert tokens and all(e["data"]["node"] in writers and e["data"]["text"] for e in tokens)
    assert tokens[0]["data"]["node"] == "synthesize"
    assert all("." in e["id"] for e in tokens)  # N.k: after persisted event N
    assert not any(e["event"] == "token" for e in replay)  # live only, never replayed
    assert [e["event"] for e in replay] == [e["event"] for e in events if e["event"] != "token"]


def test_heartbeats_keep_the_stream_alive(tmp_path: Path) -> None:
    pings: list[str] = []
    with api(tmp_path, latency=0.4, sse_heartbeat=0.1) as client:
        events = read_sse(
            client,
            "POST",
            "/v1/runs/stream",
            json={"transcript": TEXT, "pipeline": "zero_shot"},
            pings=pings,
        )
    assert events[-1]["event"] == "run_finished"
    assert len(pings) >= 3


def test_conversation_rounds_option(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        run = client.post(
            "/v1/runs?wait=true",
            json={
                "transcript": TEXT,
                "pipeline": "conversation",
                "options": {"conversation_rounds": 1},
            },
        ).json()
        bad = client.post(
            "/v1/runs", json={"transcript": TEXT, "options": {"conversation_rounds": 0}}
        )
    assert run["status"] == "succeeded"
    assert len(run["report"]["extras"]["conversation"]) == 9  # the brief, then W A W P W E W C
    assert bad.status_code == 422


FIN = {
    "most_recent_earnings": {"fiscalDateEnding": "2026-06-30", "totalRevenue": "1543100000"},
    "previous_earnings": {"fiscalDateEnding": "2026-03-31", "totalRevenue": "1400000000"},
}


def _prices() -> dict[str, object]:
    from datetime import date, timedelta

    def bars(base: float) -> list[dict[str, object]]:
        return [
            {
                "date": str(date(2026, 5, 1) + timedelta(days=i)),
                "open": base + i, "high": base + i + 1, "low": base + i - 1,
                "close": base + i, "volume": 1000,
            }
            for i in range(60)
        ]  # fmt: skip

    return {
        "company": {"symbol": "NWL", "bars": bars(50.0)},
        "benchmark": {"symbol": "SPY", "bars": bars(500.0)},
    }


def test_every_pipeline_and_variant_with_and_without_inputs(tmp_path: Path) -> None:
    cases: list[tuple[str, dict[str, object]]] = [
        (p, {}) for p in ("findebate", "zero_shot", "standard_rag", "multi_agent", "conversation")
    ]
    cases += [("adversarial", {})]
    cases += [
        ("writer_feedback", {"writer_variant": v})
        for v in ("simple_writer", "advanced_writer", "simple_feedback", "advanced_feedback")
    ]
    members = ["simple_writer", "advanced_feedback"]
    ensemble: dict[str, object] = {"writer_variant": "ensemble", "ensemble_variants": members}
    cases += [("writer_feedback", ensemble)]
    with api(tmp_path) as client:
        for pipeline, options in cases:
            for inputs in ({}, {"financials": FIN, "prices": _prices()}):
                body = {"transcript": TEXT, "pipeline": pipeline, "options": options, **inputs}
                run = client.post("/v1/runs?wait=true", json=body).json()
                label = (pipeline, options, bool(inputs))
                assert run["status"] == "succeeded", label
                report = run["report"]
                assert [r["horizon"] for r in report["recommendations"]] == ["1d", "1w", "1m"]
                assert ("market_scorecard" in report["extras"]) == bool(inputs), label
                if pipeline == "writer_feedback":
                    wf = report["extras"]["writer_feedback"]
                    assert wf["variant"] == options["writer_variant"], label
                if pipeline == "adversarial":
                    market = report["extras"]["adversarial"]["briefing"]["market_analyst"]
                    assert (market["model"] == "none") == (not inputs), label


def test_writer_feedback_options_validated(tmp_path: Path) -> None:
    bad: list[dict[str, object]] = [
        {"writer_variant": "fancy"},
        {"ensemble_variants": ["simple_writer"]},
        {"ensemble_variants": ["simple_writer", "simple_writer"]},
        {"ensemble_variants": ["simple_writer", "ensemble"]},
        {"feedback_iterations": 0},
        {"retriever": "magic"},
        {"fact_check": "maybe"},
    ]
    with api(tmp_path) as client:
        for options in bad:
            body = {"transcript": TEXT, "pipeline": "writer_feedback", "options": options}
            resp = client.post("/v1/runs", json=body)
            assert resp.status_code == 422, options
            field = next(iter(options))
            assert any(field in d["loc"] for d in resp.json()["detail"]), resp.json()
        assert client.get("/v1/runs").json()["total"] == 0  # nothing was accepted


def test_fact_check_and_retriever_options_reach_the_run(tmp_path: Path) -> None:
    body = {
        "transcript": TEXT, "pipeline": "zero_shot",
        "options": {"fact_check": False, "retriever": "bm25"},
    }  # fmt: skip
    with api(tmp_path) as client:
        run_id = client.post("/v1/runs", json=body).json()["id"]
        run = wait_status(client, run_id, {"succeeded", "degraded", "failed"})
    fc = run["report"]["evidence"]["fact_check"]
    assert fc["enabled"] is False and fc["correction_attempted"] is False


def test_retriever_option_reaches_retrieval(tmp_path: Path) -> None:
    """On a pipeline that retrieves (findebate): bm25 scores are BM25 values, the default
    hybrid's are reciprocal-rank fusions (at most 2/61 per query pair), so the option's effect
    shows in the passages' scores."""
    scores: dict[str, list[float]] = {}
    with api(tmp_path) as client:
        for retriever in ("bm25", "hybrid"):
            body = {"transcript": TEXT, "pipeline": "findebate",
                    "options": {"retriever": retriever}}  # fmt: skip
            run_id = client.post("/v1/runs", json=body).json()["id"]
            run = wait_status(client, run_id, {"succeeded", "degraded", "failed"})
            passages = run["report"]["evidence"]["passages"]
            scores[retriever] = [p["score"] for p in passages if p["score"] is not None]
    assert scores["bm25"] and scores["hybrid"]
    assert max(scores["hybrid"]) <= 2 / 61 + 1e-9
    assert max(scores["bm25"]) > 2 / 61


def test_nothing_dated_on_or_after_the_call_reaches_a_run(tmp_path: Path) -> None:
    """A user's prices with a bar from 2099 and statements with a later quarter, and a call on
    2026-07-30: the scorecard is as of the last bar before the call, the later quarter is cut,
    and the report says what was cut; statements whose latest quarter is after the call are
    refused; a call date that is no date is refused; with no call date, the report says which
    day the market data is as of."""
    prices = _prices()
    company = prices["company"]
    assert isinstance(company, dict)
    late = {"date": "2099-01-01", "open": 1000, "high": 1000, "low": 1000, "close": 1000,
            "volume": 1}  # fmt: skip
    company["bars"] = [*company["bars"], late]
    later = {"fiscalDateEnding": "2026-09-30", "totalRevenue": "2000000000"}
    fin = {**FIN, "quarters": [FIN["most_recent_earnings"], later]}
    body = {"transcript": TEXT, "pipeline": "adversarial", "call_date": "2026-07-30",
            "prices": prices, "financials": fin}  # fmt: skip
    with api(tmp_path) as client:
        report = client.post("/v1/runs?wait=true", json=body).json()["report"]
        card = report["extras"]["market_scorecard"]
        assert card["as_of"] < "2026-07-30" and card["close"] != 1000
        notes = " ".join(report["notes"])
        assert "1 price bar(s) dated on or after the call date 2026-07-30" in notes
        assert "2099-01-01" in notes and "1 quarter(s)" in notes
        # statements whose latest quarter is after the call: not the call's
        bad = {**body, "financials": {"most_recent_earnings": later}}
        r = client.post("/v1/runs", json=bad)
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "financials"]
        r = client.post("/v1/runs", json={"transcript": TEXT, "call_date": "9999-99-99"})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "call_date"]
        undated = {"transcript": TEXT, "pipeline": "adversarial", "prices": _prices()}
        report = client.post("/v1/runs?wait=true", json=undated).json()["report"]
        notes = " ".join(report["notes"])
        assert "no call date was given, so the market data is as of its newest bar" in notes
        assert client.get("/v1/runs").json()["total"] == 2  # nothing stored on a refusal
