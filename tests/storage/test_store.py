"""The one store on SQLite: a data folder written by the code before migrations existed
upgrades in place on first start; runs, evaluations and event logs round-trip."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from alembic import command

from app.service.events import NodeStarted, RunStarted
from app.storage import (
    EvalRecord,
    EvalSpec,
    RunInput,
    RunRecord,
    Store,
    ThreadRecord,
    migrate,
    now,
)
from core.contract import NodeFailure, Report
from core.inputs import Financials, Prices
from core.options import RunOptions
from core.transcript import transcript_sha256

# The schema app/store.py created (verbatim) before the store moved to SQLAlchemy + Alembic.
PRE_MIGRATIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    pipeline TEXT NOT NULL,
    status TEXT NOT NULL,
    owner TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    input TEXT NOT NULL,
    report TEXT,
    error TEXT,
    failed_node TEXT,
    reason TEXT,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    cancel_requested INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_by_created ON runs(created_at DESC);
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
"""


def old_data_folder(path: Path) -> None:
    """Two runs and their events, as the previous code wrote them (ISO text times, options as
    a partial dict, 0/1 flags)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(PRE_MIGRATIONS_SCHEMA)
    created = datetime(2026, 11, 1, 9, 30, tzinfo=UTC).isoformat()
    rows = [
        ("old-done", "zero_shot", "succeeded", "k1", created, created, created,
         json.dumps({"transcript": "CEO: revenue rose 5%.", "options": {"chunk_words": 60}}),
         None, None, None, None, 120, 30, 0.0012, 0),
        ("old-queued", "findebate", "queued", None, created, None, None,
         json.dumps({"transcript": "CFO: margins fell.", "options": {}}),
         None, None, None, None, 0, 0, None, 1),
    ]  # fmt: skip
    conn.executemany(f"INSERT INTO runs VALUES ({', '.join('?' * 16)})", rows)
    for seq, kind in enumerate(["run_started", "node_started", "run_finished"], 1):
        data = json.dumps({"type": kind, "run_id": "old-done"})
        conn.execute("INSERT INTO events VALUES (?, ?, ?, ?)", ("old-done", seq, kind, data))
    conn.commit()
    conn.close()


async def test_pre_migration_sqlite_folder_upgrades_in_place(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    old_data_folder(path)
    store = await Store.open(None, path)
    try:
        done = await store.get("old-done")
        queued = await store.get("old-queued")
        assert done is not None and queued is not None
        assert done.status == "succeeded" and done.owner == "k1"
        assert done.created_at == datetime(2026, 11, 1, 9, 30, tzinfo=UTC)
        assert (done.prompt_tokens, done.completion_tokens, done.cost) == (120, 30, 0.0012)
        assert done.input.options.chunk_words == 60
        assert done.input.options.model_fields_set == {"chunk_words"}  # the rest: defaults
        assert queued.cancel_requested is True
        assert [r.id for r in await store.unfinished()] == ["old-queued"]
        events = await store.events("old-done")
        assert [e.type for e in events] == ["run_started", "node_started", "run_finished"]
        # the upgraded schema works: new events continue the numbering, leases exist
        assert await store.append_event("old-done", NodeStarted(run_id="old-done", node="x")) == 4
        assert await store.claim("old-queued", "w1", timedelta(seconds=20)) is not None
    finally:
        await store.close()
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        version = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        shas = dict(conn.execute("SELECT id, transcript_sha FROM runs"))
        auto_vacuum = conn.execute("PRAGMA auto_vacuum").fetchone()[0]
    assert {"runs", "event_log", "evals", "alembic_version"} <= tables and "events" not in tables
    # 0004 filled in each stored run's transcript id; the old file was rewritten to shrink
    assert shas == {
        "old-done": transcript_sha256("CEO: revenue rose 5%."),
        "old-queued": transcript_sha256("CFO: margins fell."),
    }
    assert auto_vacuum == 2  # INCREMENTAL
    assert version == migrate.head()
    reopened = await Store.open(None, path)  # a second start applies nothing and loses nothing
    assert (await reopened.get("old-done")) is not None
    await reopened.close()


async def test_runs_evals_and_logs_round_trip(tmp_path: Path) -> None:
    store = await Store.open(None, tmp_path / "runs.sqlite")
    try:
        record = RunRecord(
            id="r1", pipeline="findebate", status="queued", created_at=now(),
            input=RunInput(transcript="t", options=RunOptions(retrieval_k=9)),
        )  # fmt: skip
        await store.create(record)
        got = await store.get("r1")
        assert got is not None and got.input.options.retrieval_k == 9
        assert await store.update_if_status("r1", {"queued"}, status="running")
        assert not await store.update_if_status("r1", {"queued"}, status="cancelled")
        items, total = await store.list_runs(owner=None, status="running")
        assert total == 1 and items[0].id == "r1"
        assert await store.append_event("r1", RunStarted(run_id="r1", pipeline="findebate")) == 1
        spec = EvalSpec(calls=[], pipelines=["zero_shot"], out=str(tmp_path / "e"))
        await store.create_eval(EvalRecord(id="e1", created_at=now(), spec=spec, total=3))
        assert await store.claim_eval("e1", "api-1", timedelta(seconds=30))
        assert not await store.claim_eval("e1", "api-2", timedelta(seconds=30))
        assert await store.unheld_evals() == []
        await store.update_eval("e1", done=2)
        evaluation = await store.get_eval("e1")
        assert evaluation is not None and evaluation.done == 2 and evaluation.total == 3
        await store.delete("r1")
        assert await store.get("r1") is None and await store.events("r1") == []
    finally:
        await store.close()


async def test_a_page_of_runs_leaves_the_reports_out(tmp_path: Path) -> None:
    """Listing reads summaries: a finished run's report is most of its row, and a list page
    (the web page, a client polling for a batch) never shows it; `get` still returns it."""
    store = await Store.open(None, tmp_path / "runs.sqlite")
    try:
        created = now()
        report = Report(
            pipeline="zero_shot", status="degraded", created_at=created,
            transcript_sha256=transcript_sha256("t"), markdown="# Report\n" + "x" * 5000,
            failures=[NodeFailure(node="writer", reason="parse")],
        )  # fmt: skip
        queued = RunRecord(
            id="r1", pipeline="zero_shot", status="queued", created_at=created,
            input=RunInput(transcript="t", options=RunOptions()),
        )  # fmt: skip
        await store.create(queued)
        await store.update("r1", status="degraded", report=report, prompt_tokens=7)
        items, total = await store.list_runs(owner=None)
        assert total == 1 and items[0].status == "degraded" and items[0].prompt_tokens == 7
        assert items[0].report is None and items[0].input.transcript == "t"
        full = await store.get("r1")
        assert full is not None and full.report is not None
        assert full.report.markdown == report.markdown
    finally:
        await store.close()


async def test_threads_of_a_0005_database_become_scoped_by_their_key(tmp_path: Path) -> None:
    """Migration 0006: a thread stored under its bare id is kept under `<owner>/<id>`, so its
    key still finds it (and its runs) and another key may make its own thread of that id."""
    path = tmp_path / "runs.sqlite"
    cfg = migrate.alembic_config()
    cfg.set_main_option("sqlalchemy.url", f"sqlite:///{path}")
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0005")
        conn.execute(sa.text(
            "INSERT INTO threads (id, owner, created_at, metadata) VALUES "
            "('t1', 'k1', '2026-11-01T09:30:00+00:00', '{\"who\": \"k1\"}'), "
            "('open', NULL, '2026-11-01T09:30:00+00:00', '{}')"
        ))  # fmt: skip
    engine.dispose()
    store = await Store.open(None, path)
    try:
        record = RunRecord(
            id="r1", pipeline="zero_shot", status="succeeded", owner="k1", created_at=now(),
            input=RunInput(transcript="t", options=RunOptions()), thread_id="t1",
        )  # fmt: skip
        await store.create(record)
        mine = await store.get_thread("k1", "t1")
        assert mine is not None and mine.id == "t1" and mine.metadata == {"who": "k1"}
        assert await store.get_thread("k2", "t1") is None
        assert await store.get_thread(None, "open") is not None
        assert [r.id for r in await store.thread_runs("k1", "t1", limit=5, offset=0)] == ["r1"]
        assert await store.thread_runs("k2", "t1", limit=5, offset=0) == []
        await store.create_thread(ThreadRecord(id="t1", owner="k2", created_at=now()))
        assert await store.count_threads("k1") == await store.count_threads("k2") == 1
    finally:
        await store.close()


async def test_a_claimed_queued_run_is_not_claimed_again_by_another_worker(tmp_path: Path) -> None:
    """Between a worker's claim and the run's `running` status, a second delivery of its job
    (two sweepers re-enqueueing it after a Redis restart) must not start it on another worker;
    once the first worker's lease lapses (it died), another may take it."""
    store = await Store.open(None, tmp_path / "runs.sqlite")
    try:
        run = RunRecord(
            id="r1", pipeline="zero_shot", status="queued", created_at=now(),
            input=RunInput(transcript="t", options=RunOptions()),
        )  # fmt: skip
        await store.create(run)
        assert await store.claim("r1", "w1", timedelta(seconds=30)) is not None
        assert await store.claim("r1", "w2", timedelta(seconds=30)) is None
        assert await store.claim("r1", "w1", timedelta(seconds=30)) is not None  # its own
        await store.release("r1", "w1")
        assert await store.claim("r1", "w2", timedelta(seconds=30)) is not None
        await store.update("r1", status="succeeded")
        assert await store.claim("r1", "w3", timedelta(seconds=30)) is None
    finally:
        await store.close()


FIN = {
    "Ticker": "NWO",  # the alias, as the API stored it (model_dump(by_alias=True))
    "most_recent_earnings": {"fiscalDateEnding": "2026-06-30", "totalRevenue": "1543100000"},
    "previous_earnings": {"fiscalDateEnding": "2026-03-31", "totalRevenue": 1400000000.0},
}
PRICES = {
    "company": {"symbol": "NWO", "bars": [
        {"date": f"2026-05-0{d}", "open": 10, "high": 11, "low": 9, "close": 10 + d}
        for d in range(1, 4)
    ]},
}  # fmt: skip


async def test_financials_and_prices_are_stored_typed(tmp_path: Path) -> None:
    """A run's financials and prices stay typed from the body to the engine, and a run stored
    when they were dicts (keys by alias) reads back the same models."""
    store = await Store.open(None, tmp_path / "runs.sqlite")
    try:
        fin, prices = Financials.model_validate(FIN), Prices.model_validate(PRICES)
        record = RunRecord(
            id="typed", pipeline="zero_shot", status="queued", created_at=now(),
            input=RunInput(transcript="t", options=RunOptions(), financials=fin, prices=prices),
        )  # fmt: skip
        await store.create(record)
        old_fin = fin.model_dump(mode="json", by_alias=True)
        assert old_fin["Ticker"] == "NWO"
        old = {"transcript": "t", "options": RunOptions().model_dump(mode="json"),
               "financials": old_fin, "prices": prices.model_dump(mode="json")}  # fmt: skip
        await store.create(record.model_copy(update={"id": "old"}))
        async with store.engine.begin() as conn:  # the input column as the previous code wrote it
            await conn.execute(
                sa.text("UPDATE runs SET input = :v WHERE id = 'old'"), {"v": json.dumps(old)}
            )
        for run_id in ("typed", "old"):
            got = await store.get(run_id)
            assert got is not None
            assert isinstance(got.input.financials, Financials) and got.input.financials == fin
            assert isinstance(got.input.prices, Prices) and got.input.prices == prices
            assert got.input.financials.ticker == "NWO"
    finally:
        await store.close()


async def test_a_batch_after_a_known_end_skips_the_read_and_a_stale_end_is_corrected(
    tmp_path: Path,
) -> None:
    """The event writer passes the last number it stored; when another writer appended since,
    the numbers it would take are held, and the batch goes after the real end, in order."""
    store = await Store.open(None, tmp_path / "runs.sqlite")
    try:
        first = [NodeStarted(run_id="r", node=n) for n in ("a", "b")]
        last = await store.append_events("r", first)
        assert last == 2
        assert await store.append_events("r", [NodeStarted(run_id="r", node="c")], after=last) == 3
        await store.append_event("r", RunStarted(run_id="r", pipeline="zero_shot"))  # seq 4
        # the writer still believes 3 is the end
        assert await store.append_events("r", [NodeStarted(run_id="r", node="d")], after=3) == 5
        stored = await store.events("r")
        assert [e.seq for e in stored] == [1, 2, 3, 4, 5]
        assert [e.data.get("node") for e in stored] == ["a", "b", "c", None, "d"]
    finally:
        await store.close()
