"""Issue 18's reproductions, each a regression test: Last-Event-ID past the log or out of range,
lone surrogates, JSON nested 100,000 deep, invisible-only transcripts."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.app.api_helpers import api, read_sse, wait_status
from tests.conftest import SAMPLE

pytestmark = pytest.mark.server  # some of these start a real server process

TEXT = SAMPLE.read_text(encoding="utf-8")


def test_last_event_id_past_the_end_of_a_finished_log_ends_the_stream(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        run_id = client.post("/v1/runs", json={"transcript": TEXT, "pipeline": "facts"}).json()[
            "id"
        ]
        wait_status(client, run_id, {"succeeded"})
        last = int(read_sse(client, "GET", f"/v1/runs/{run_id}/events")[-1]["id"])
        for after in (str(last), str(last + 1), "500"):
            events = read_sse(
                client, "GET", f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": after}
            )
            assert events == []  # the stream ends (it used to ping forever)
        huge = client.get(
            f"/v1/runs/{run_id}/events",
            headers={"Last-Event-ID": "99999999999999999999999999"},
        )
        assert huge.status_code == 400 and "out of range" in huge.json()["detail"]


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/v1/runs", '{"transcript": "Revenue rose \\ud800 today."}', "transcript"),
        ("/v1/runs/stream", '{"transcript": "Revenue rose \\ud800 today."}', "transcript"),
        ("/v1/runs", '{"transcript": "Revenue rose.", "company": "Acme \\udfff"}', "company"),
        ("/v1/evals", '{"calls": [{"id": "a", "transcript": "x \\ud800"}], "pipelines": ["facts"]}',
         "transcript"),
    ],
)  # fmt: skip
def test_lone_surrogates_are_a_422_naming_the_field(
    tmp_path: Path, url: str, body: str, field: str
) -> None:
    with api(tmp_path) as client:
        resp = client.post(url, content=body, headers={"content-type": "application/json"})
        assert resp.status_code == 422, resp.text
        [err] = resp.json()["detail"]
        assert err["loc"][-1] == field and "input" not in err  # the text is never echoed
        assert client.get("/v1/runs").json()["total"] == 0  # nothing was created


def test_json_nested_100000_deep_is_a_400(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        for url in ("/v1/runs", "/v1/evals"):
            resp = client.post(
                url, content="[" * 100_000 + "]" * 100_000,
                headers={"content-type": "application/json"},
            )  # fmt: skip
            detail = resp.json()["detail"]  # /v1/evals goes through FastAPI's own body parser
            assert resp.status_code == 400 and (
                "nested too deeply" in detail or "error parsing the body" in detail
            )


@pytest.mark.parametrize(
    "payload",
    [
        "\u200b\u200b\u200d\ufeff", "\u2060 \u200e\n\u00a0",
        # issue 27, 3: Hangul filler (Lo), braille blank (So), a variation selector and
        # combining marks (Mn, Me) alone, the halfwidth filler, all of them mixed
        "\u3164", "\u2800\u2800", "\ufe0f", "\u0301\u0302", "\u20dd", "\uffa0\u115f",
        "\u3164 \u2800\n\ufe0f\u0301\u200b",
    ],
)  # fmt: skip
def test_invisible_only_transcripts_are_refused_like_empty_ones(
    tmp_path: Path, payload: str
) -> None:
    with api(tmp_path) as client:
        for url, body in (
            ("/v1/runs", {"transcript": payload}),
            ("/v1/evals", {"calls": [{"id": "a", "transcript": payload}], "pipelines": ["facts"]}),
        ):
            resp = client.post(url, json=body)
            assert resp.status_code == 422, resp.text
            detail: Any = resp.json()["detail"]
            assert "invisible characters" in str(detail)
        assert client.get("/v1/runs").json()["total"] == 0


def test_metadata_is_single_line_plain_text_escaped_in_markdown(tmp_path: Path) -> None:
    evil = {"company": "Acme\u202e Corp\n# Injected heading", "ticker": "AC*ME",
            "period": "Q2 [link](http://x) <b>"}  # fmt: skip
    with api(tmp_path) as client:
        run = client.post(
            "/v1/runs?wait=true", json={"transcript": TEXT, "pipeline": "facts", **evil}
        ).json()
    report = run["report"]
    assert report["call"]["company"] == "Acme Corp # Injected heading"  # one line, no U+202E
    heading = report["markdown"].splitlines()[0]
    assert heading == (
        r"# Acme Corp \# Injected heading (AC\*ME) Q2 \[link\](http://x) \<b\>: analyst report"
    )
    assert "\u202e" not in report["markdown"] and "\n# Injected" not in report["markdown"]


def test_eval_folders_never_follow_links_outside_the_allowed_roots(tmp_path: Path) -> None:
    allowed = tmp_path / "calls"
    allowed.mkdir()
    (allowed / "OK.txt").write_text(TEXT, encoding="utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (allowed / "PW.txt").symlink_to(secret)
    with api(tmp_path, eval_dirs=str(allowed)) as client:
        resp = client.post("/v1/evals", json={"dir": str(allowed), "pipelines": ["facts"]})
        assert resp.status_code == 422, resp.text
        [err] = resp.json()["detail"]
        assert err["loc"] == ["body", "dir"] and "PW.txt links outside" in err["msg"]
        assert str(tmp_path) not in err["msg"]  # no server path in the message


def test_inline_call_id_that_names_a_summary_is_refused_on_its_field(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        resp = client.post(
            "/v1/evals",
            json={"calls": [{"id": "x.summary", "transcript": TEXT}], "pipelines": ["facts"]},
        )
        assert resp.status_code == 422
        [err] = resp.json()["detail"]
        assert err["loc"][-1] == "id" and err["loc"][-3] == "calls"
        assert str(tmp_path) not in resp.text
        inputs = tmp_path / "data" / "evals" / "inputs"
        assert not inputs.exists() or not any(inputs.iterdir())  # no folder left behind


class _SlowRisk:
    """FakeModels whose risk_analyst answers last (after the other four specialists finished)
    and fails its first call: the run stops mid-step with four results saved."""

    def __init__(self) -> None:
        from core.llm.fake import FakeModels, Script, canned

        self.calls = 0

        def risky(messages: Any, tool: str | None) -> Any:
            self.calls += 1
            if self.calls == 1:
                raise RuntimeError("risk_analyst interrupted")
            return canned(messages, tool)

        self.models = FakeModels(
            {"risk_analyst": Script.of(default=risky)}, default=Script.of(default=canned)
        )
        chat = self.models.chat

        def slow_chat(role: str) -> Any:
            from core.llm.chat import ChatHandle
            from core.llm.fake import ScriptedChatModel

            handle = chat(role)
            if role != "risk_analyst":
                return handle
            model = ScriptedChatModel(
                script=self.models.script(role), latency=0.3, disable_streaming=True
            )
            return ChatHandle(model=model, name=handle.name, window=None)

        self.models.chat = slow_chat  # type: ignore[method-assign]


async def test_resume_never_restarts_a_node_that_had_finished(fake_engine: Any) -> None:
    """Defect 1: resuming a run interrupted during the specialists' step announced the four
    that had finished again (node_started with no node_finished). The two logs together read
    as one story: every node started once per pass and finished every time it started."""
    from core.transcript import parse_transcript

    fakes = _SlowRisk()
    async with fake_engine(fakes.models) as engine:
        request = engine.request(
            "findebate", parse_transcript(TEXT), run_id="r1", durability="sync"
        )
        first = await engine.run(request)
        assert first.status == "failed" and first.failed_node == "risk_analyst"
        second = await engine.run(engine.request("findebate", None, run_id="r1", durability="sync"))
    assert second.status == "succeeded"
    events = [e for e in [*first.events, *second.events] if e.type.startswith("node_")]
    resumed = [e.node for e in second.events if e.type == "node_started"]
    assert resumed[0] == "risk_analyst"
    assert not {"earnings_analyst", "market_predictor", "sentiment_analyst",
                "valuation_analyst"} & set(resumed)  # fmt: skip
    started = [e.node for e in events if e.type == "node_started"]
    finished = [e.node for e in events if e.type == "node_finished"]
    # only the interrupted node has an extra start (it ran again); everything else pairs up
    assert sorted(started) == sorted([*finished, "risk_analyst"])
    assert len(set(finished)) == len(finished)  # findebate without a revert: one pass each


MARK = "QZXV-CONFIDENTIAL-7731"  # in every transcript, financials and report text below


@pytest.fixture(scope="module")
def logged_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.live_server import start_server, stop_server

    srv = start_server(
        tmp_path_factory.mktemp("logs"),
        key="log-key",
        env={
            "EDESK_MAX_REQUEST_BYTES": "3000000",
            # the second run's writer answers garbage until its parse budget is spent
            "EDESK_FAULTS": '{"synthesize": ["garbage", "garbage", "garbage", "garbage"]}',
        },
    )
    yield srv
    stop_server(srv)


def _send(srv: Any, method: str, path: str, body: bytes) -> int:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(srv.url + path, data=body, method=method)
    req.add_header("Content-Type", "application/json")
    req.add_header("Authorization", "Bearer log-key")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            resp.read()
            return int(resp.status)
    except urllib.error.HTTPError as err:
        err.read()
        return int(err.code)


def test_no_transcript_financials_or_report_text_in_the_log(logged_server: Any) -> None:
    """Defect 3: a failing POST /v1/evals logged the request's input, transcript included.
    After abuse on every intake (bad fields, bad bytes, deep JSON, bad financials and evals,
    a run that succeeds, so report text exists) the server's log holds none of that text."""
    import json

    text = f"Revenue was $5 million. {MARK} said margins rose."
    bodies: list[tuple[str, str, bytes]] = [
        ("POST", "/v1/runs", json.dumps({"transcript": text, "pipeline": "nope"}).encode()),
        ("POST", "/v1/runs", json.dumps({"transcript": text, "options": {"x": 1}}).encode()),
        ("POST", "/v1/runs", ('{"transcript": "' + MARK + ' \\ud800"}').encode()),
        ("POST", "/v1/runs/stream", ('{"transcript": "' + MARK + ' \\ud800"}').encode()),
        ("POST", "/v1/runs", ('{"transcript": "' + MARK).encode()),  # cut-off JSON
        ("POST", "/v1/runs", (f'{{"transcript": "{MARK}", "x": ' + "[" * 100_000).encode()),
        ("POST", "/v1/runs", json.dumps({"transcript": text, "financials": {MARK: 1}}).encode()),
        ("POST", "/v1/runs", json.dumps({"transcript": text, "company": MARK * 50}).encode()),
        (
            "POST",
            "/v1/evals",
            json.dumps({"calls": [{"id": "a.summary", "transcript": text}]}).encode(),
        ),  # fmt: skip
        (
            "POST",
            "/v1/evals",
            json.dumps({"calls": [{"id": "a", "transcript": text, "summary": 7}]}).encode(),
        ),  # fmt: skip
        (
            "POST",
            "/v1/evals",
            json.dumps(
                {"calls": [{"id": "a", "transcript": "\u200b"}, {"id": "a", "transcript": text}]}
            ).encode(),
        ),
    ]
    for method, path, body in bodies:
        status = _send(logged_server, method, path, body)
        assert 400 <= status < 500, (path, body[:80], status)
    ids = []
    for _ in range(2):  # the first one's writer answers garbage (degraded), the second succeeds
        run = logged_server.request(
            "POST", "/v1/runs", {"transcript": text, "pipeline": "zero_shot"}
        )
        ids.append(run["id"])
        deadline = time.monotonic() + 60
        while logged_server.request("GET", f"/v1/runs/{run['id']}")["status"] not in (
            "succeeded", "degraded", "failed",
        ) and time.monotonic() < deadline:  # fmt: skip
            time.sleep(0.2)
    first, second = (logged_server.request("GET", f"/v1/runs/{i}") for i in ids)
    assert first["status"] == "degraded"
    assert "Revenue rose 10.7%" in second["report"]["markdown"]  # the fake's report text
    log = logged_server.log.read_text(encoding="utf-8", errors="replace")
    assert "Uvicorn running" in log or "started" in log  # the log is the server's
    for secret in (MARK, "said margins rose", "Revenue rose 10.7%"):
        assert secret not in log, f"{secret!r} found in the server log"


def test_stream_resumes_after_the_header_not_the_query_and_token_ids_resume_after_n(
    tmp_path: Path,
) -> None:
    """The page reopens with `?after=N`; the browser's own reconnect then sends a newer
    Last-Event-ID header: the header wins. A token id `N.k` resumes after event N (so N+1, the
    next stored event, is not skipped). Read on the server's stream itself (the page drops
    repeated ids, so a browser test cannot see these)."""
    with api(tmp_path) as client:
        run_id = client.post("/v1/runs", json={"transcript": TEXT, "pipeline": "facts"}).json()[
            "id"
        ]
        wait_status(client, run_id, {"succeeded"})
        url = f"/v1/runs/{run_id}/events"
        ids = [int(e["id"]) for e in read_sse(client, "GET", url)]
        assert ids == list(range(1, len(ids) + 1)) and len(ids) >= 5
        both = read_sse(client, "GET", f"{url}?after=1", headers={"Last-Event-ID": "3"})
        assert [int(e["id"]) for e in both][0] == 4  # the header's 3, not the query's 1
        query_only = read_sse(client, "GET", f"{url}?after=2")
        assert [int(e["id"]) for e in query_only][0] == 3
        token = read_sse(client, "GET", url, headers={"Last-Event-ID": "3.7"})
        assert [int(e["id"]) for e in token][0] == 4  # after event 3, not after 4


def test_per_key_rate_limit_answers_429_with_retry_after(tmp_path: Path) -> None:
    """Rapid POSTs from one key: past EDESK_KEY_RUNS_PER_MINUTE the rest get 429 with
    Retry-After, nothing stored for them; another key is not affected."""
    keys = {"Authorization": "Bearer k1"}, {"Authorization": "Bearer k2"}
    body = {"transcript": TEXT, "pipeline": "facts"}
    with api(tmp_path, api_keys="k1,k2", key_runs_per_minute=3) as client:
        codes = [client.post("/v1/runs", json=body, headers=keys[0]) for _ in range(8)]
        assert [r.status_code for r in codes] == [202] * 3 + [429] * 5
        refused = codes[3]
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert "EDESK_KEY_RUNS_PER_MINUTE=3" in refused.json()["detail"]
        assert client.get("/v1/runs", headers=keys[0]).json()["total"] == 3
        assert client.post("/v1/runs", json=body, headers=keys[1]).status_code == 202
        streamed = client.post("/v1/runs/stream", json=body, headers=keys[0])
        assert streamed.status_code == 429  # the streaming intake counts too


def test_runs_in_flight_and_queue_length_are_bounded(tmp_path: Path) -> None:
    body = {"transcript": TEXT, "pipeline": "zero_shot"}
    with api(tmp_path, latency=0.5, key_runs_in_flight=2, max_runs=1) as client:
        ids = [client.post("/v1/runs", json=body).json()["id"] for _ in range(2)]
        third = client.post("/v1/runs", json=body)
        assert third.status_code == 429 and "EDESK_KEY_RUNS_IN_FLIGHT=2" in third.json()["detail"]
        assert third.headers["Retry-After"]
        for run_id in ids:
            wait_status(client, run_id, {"succeeded"})
        assert client.post("/v1/runs", json=body).status_code == 202  # room again
    with api(tmp_path / "q", latency=0.5, max_queue=1, max_runs=1) as client:
        first = client.post("/v1/runs", json=body).json()["id"]
        wait_status(client, first, {"running", "succeeded"})
        assert client.post("/v1/runs", json=body).status_code == 202  # waits in the queue
        full = client.post("/v1/runs", json=body)
        assert full.status_code == 429 and "EDESK_MAX_QUEUE=1" in full.json()["detail"]


@pytest.mark.parametrize(
    "folder", ["\u0000", "a\u0000b", "x\u0007y", "\ud9da\udfc1\u0007\u0090\u00f6\u0000"]
)
def test_eval_dir_with_control_characters_is_a_422(tmp_path: Path, folder: str) -> None:
    """Found by the fuzzer: a NUL in `dir` reached the file system (ValueError, a 500)."""
    with api(tmp_path, eval_dirs=str(tmp_path)) as client:
        body = json.dumps({"dir": folder, "ids": None})  # ASCII: \\u escapes, as the fuzzer sent
        resp = client.post("/v1/evals", content=body, headers={"Content-Type": "application/json"})
    assert resp.status_code == 422, resp.text
    assert "control characters" in resp.text and str(tmp_path) not in resp.text


HEAVY = "1," * 499_000 + "\nRevenue was $5 million, up 10% from last year.\n"  # ~1 MB


def test_healthz_keeps_answering_while_a_heavy_run_works(tmp_path: Path) -> None:
    """Issue 27, 1: a 1 MB adversarial call's CPU-bound node work (facts, chunking, fitting the
    prompt, the fact-check's grounding, the report's scans) runs off the event loop, so the API
    answers while the run works. (Before: the fact-check alone held the loop for ~6 s.) The
    bound is generous, for a loaded machine: it tells a frozen loop from a busy one."""
    with api(tmp_path) as client:
        run_id = client.post("/v1/runs", json={"transcript": HEAVY, "pipeline": "zero_shot"})
        assert run_id.status_code == 202, run_id.text
        rid = run_id.json()["id"]
        slowest, polls = 0.0, 0
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            t0 = time.monotonic()
            assert client.get("/healthz").status_code == 200
            slowest = max(slowest, time.monotonic() - t0)
            polls += 1
            if client.get(f"/v1/runs/{rid}").json()["status"] not in ("queued", "running"):
                break
            time.sleep(0.05)
        assert client.get(f"/v1/runs/{rid}").json()["status"] == "succeeded"
        assert polls > 20  # the run took a while: /healthz was asked throughout
        # a frozen loop held /healthz ~6 s; a busy one, alone on 2 cores, 0.8-0.9 s (1.6-3.1 s
        # before issue 28's merges), and up to ~3.1 s with the whole suite beside it
        assert slowest < 4.5, f"/healthz took {slowest:.1f} s while the run worked"


def _interrupted_run(data: Path, run_id: str, starts: int) -> None:
    """A stored `running` run that was started `starts` times, each ended by a killed or
    stalled process while it was in the facts node (as a SIGKILL during it leaves the store)."""
    import asyncio

    from app.service.events import NodeStarted, RunStarted
    from app.storage import RunInput, RunRecord, Store, now
    from core.options import RunOptions

    async def write() -> None:
        store = await Store.open(None, data / "runs.sqlite")
        try:
            await store.create(RunRecord(
                id=run_id, pipeline="facts", status="running", created_at=now(),
                started_at=now(), input=RunInput(transcript=TEXT, options=RunOptions()),
            ))  # fmt: skip
            for _ in range(starts):
                await store.begin_attempt(run_id)
                await store.append_event(run_id, RunStarted(run_id=run_id, pipeline="facts"))
                await store.append_event(run_id, NodeStarted(run_id=run_id, node="facts"))
        finally:
            await store.close()

    asyncio.run(write())


def test_a_run_interrupted_resume_attempts_times_fails_naming_its_node(tmp_path: Path) -> None:
    """Issue 27, 1: a run whose process was killed or stalled EDESK_RESUME_ATTEMPTS times is
    failed at the next start-up (reason `interrupted`, the node named), not resumed forever;
    the API can delete it. One interruption fewer and it resumes and finishes."""
    data = tmp_path / "data"
    _interrupted_run(data, "twice", starts=2)
    _interrupted_run(data, "once", starts=1)
    with api(tmp_path) as client:  # EDESK_RESUME_ATTEMPTS defaults to 2
        failed = wait_status(client, "twice", {"succeeded", "failed"})
        assert failed["status"] == "failed" and failed["reason"] == "interrupted"
        assert failed["failed_node"] == "facts"
        assert "node facts" in failed["error"] and "EDESK_RESUME_ATTEMPTS=2" in failed["error"]
        assert wait_status(client, "once", {"succeeded", "failed"})["status"] == "succeeded"
        assert client.delete("/v1/runs/twice").status_code == 204
        assert client.get("/v1/runs/twice").status_code == 404
    _interrupted_run(tmp_path / "more" / "data", "twice", starts=2)
    with api(tmp_path / "more", resume_attempts=3) as client:  # the setting decides
        assert wait_status(client, "twice", {"succeeded", "failed"})["status"] == "succeeded"


BIG = "Q" * 900_000


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("POST", "/v1/runs", {"transcript": TEXT, "financials": {BIG: 1}}),  # a key, in loc
        ("POST", "/v1/runs", {"transcript": TEXT, "pipeline": BIG}),
        ("POST", "/v1/runs", {"transcript": TEXT, "call_date": BIG, "fetch": True,
                              "ticker": "ACME"}),
        ("POST", "/v1/evals", {"calls": [{"id": "a", "transcript": TEXT}], "ids": [BIG],
                               "pipelines": ["facts"]}),
        ("POST", "/v1/evals", {"dir": "/" + "d" * 4000, "pipelines": ["facts"]}),
        ("POST", "/threads", {"thread_id": BIG}),
        ("POST", "/runs", {"assistant_id": BIG, "input": {"transcript": TEXT}}),
        ("GET", "/v1/runs/" + "r" * 8000, None),
    ],
)  # fmt: skip
def test_a_refusal_never_echoes_more_than_200_characters_of_a_value(
    tmp_path: Path, method: str, url: str, body: Any
) -> None:
    """Issue 27, 3: a refusal echoed a 900 KB field back. Every value a refusal quotes (a field,
    an id, a dict key in `loc`) is cut to 200 characters and '…'."""
    with api(tmp_path) as client:
        resp = client.request(method, url, json=body)
        assert 400 <= resp.status_code < 500, resp.text[:300]
        assert len(resp.content) < 3_000, (resp.status_code, resp.text[:300])
        for run in ("Q" * 201, "d" * 201, "r" * 201):
            assert run not in resp.text


def _quarter(revenue: str) -> str:
    return '{"most_recent_earnings": {"fiscalDateEnding": "2026-06-30", "totalRevenue": ' + (
        revenue + "}}"
    )


@pytest.mark.parametrize(
    "financials",
    [
        _quarter("NaN"),
        _quarter("Infinity"),
        _quarter("-Infinity"),
        _quarter('"nan"'),
        _quarter('"1e999"'),
        '{"most_recent_earnings": {"fiscalDateEnding": "2026-06-30", "otherLine": "inf"}}',
    ],
)
def test_financials_refuse_nan_and_infinity(tmp_path: Path, financials: str) -> None:
    """Issue 27, 3: NaN and the infinities (JSON constants or text) are a 422, never a
    figure; nothing is stored."""
    body = f'{{"transcript": {json.dumps(TEXT)}, "pipeline": "facts", "financials": {financials}}}'
    with api(tmp_path) as client:
        resp = client.post("/v1/runs", content=body, headers={"content-type": "application/json"})
        assert resp.status_code == 422, resp.text[:300]
        assert client.get("/v1/runs").json()["total"] == 0
        files = {"transcript": ("call.txt", TEXT.encode(), "text/plain")}
        upload = client.post("/v1/runs", files=files, data={"financials": financials})
        assert upload.status_code == 422, upload.text[:300]


def test_token_budget_has_an_upper_bound(tmp_path: Path) -> None:
    """Issue 27, 3: 10^26 was accepted as a budget."""
    with api(tmp_path) as client:
        for budget in (10**26, 100_000_001):
            resp = client.post("/v1/runs", json={"transcript": TEXT, "options":
                                                  {"token_budget": budget}})  # fmt: skip
            assert resp.status_code == 422, resp.text[:300]
            assert resp.json()["detail"][0]["loc"][-1] == "token_budget"
        ok = client.post("/v1/runs", json={"transcript": TEXT, "pipeline": "facts",
                                            "options": {"token_budget": 100_000_000}})  # fmt: skip
        assert ok.status_code == 202
