"""Keyless market data, offline: SEC EDGAR (recorded answers in SEC's formats under
tests/app/data/sec/, a fictional company NWO with CIK 999999) and Stooq's daily CSV, served by
respx, no network. Covers what reaches a pipeline (nothing filed or dated on or after the call),
the cache with fetch time, SEC's rate limit, the User-Agent, and the refusals (unknown ticker,
a quarter without a release, a release without exhibit 99.1, a malformed XBRL value, a price
file with gaps), then `analyze --fetch` with no key at all."""

from __future__ import annotations

import json
import re
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from app.cli import EXIT_OK, EXIT_USAGE, main
from app.market.http import VendorError
from app.market.sec import SecEdgar
from app.market.sources import fill
from app.market.stooq import Stooq, check_gaps, parse_csv
from app.settings import Settings
from tests.conftest import SAMPLE

DATA = Path(__file__).parent / "data" / "sec"
CALL = date(2026, 7, 30)
UA = "Earnings Desk tests tests@example.com"


def bdays(start: date, end: date, skip: frozenset[date] = frozenset()) -> list[date]:
    days, d = [], start
    while d <= end:
        if d.weekday() < 5 and d not in skip:
            days.append(d)
        d += timedelta(days=1)
    return days


def stooq_csv(base: float, skip: frozenset[date] = frozenset()) -> str:
    lines = ["Date,Open,High,Low,Close,Volume"]
    for i, d in enumerate(bdays(date(2025, 6, 2), date(2026, 9, 30), skip)):
        c = base + i * 0.1
        lines.append(f"{d},{c - 0.2:.2f},{c + 0.5:.2f},{c - 0.5:.2f},{c:.2f},{1000 + i}")
    return "\n".join(lines) + "\n"


def sec(request: httpx.Request, facts: dict[str, Any] | None = None) -> httpx.Response:
    """SEC's hosts as recorded: 403 without a User-Agent (as SEC answers), 404 when unknown."""
    if not request.headers.get("user-agent", "").endswith("tests@example.com"):
        return httpx.Response(403, text="Your Request Originates from an Undeclared Automated Tool")
    path = request.url.path
    if path == "/files/company_tickers.json":
        return httpx.Response(200, text=(DATA / "company_tickers.json").read_text())
    if path.startswith("/submissions/"):
        name = path.rsplit("/", 1)[-1]
        return httpx.Response(200, text=(DATA / f"submissions_{name}").read_text())
    if path.startswith("/api/xbrl/companyfacts/"):
        if facts is not None:
            return httpx.Response(200, json=facts)
        name = path.rsplit("/", 1)[-1]
        return httpx.Response(200, text=(DATA / f"companyfacts_{name}").read_text())
    match = re.fullmatch(r"/Archives/edgar/data/999999/\d{18}/([\d-]+\.txt)", path)
    if match and (DATA / match.group(1)).is_file():
        return httpx.Response(200, text=(DATA / match.group(1)).read_text())
    return httpx.Response(404, text="Not Found")


def stooq(request: httpx.Request, gaps: frozenset[date] = frozenset()) -> httpx.Response:
    symbol = request.url.params["s"]
    if symbol == "nwo.us":
        return httpx.Response(200, text=stooq_csv(40.0, gaps))
    if symbol == "spy.us":
        return httpx.Response(200, text=stooq_csv(500.0))
    return httpx.Response(200, text="No data")


def mocked(mock: respx.MockRouter, **kw: Any) -> dict[str, respx.Route]:
    return {
        "sec": mock.route(host__regex=r"(www|data)\.sec\.gov").mock(
            side_effect=lambda r: sec(r, kw.get("facts"))
        ),
        "stooq": mock.route(host="stooq.com").mock(
            side_effect=lambda r: stooq(r, kw.get("gaps", frozenset()))
        ),
    }


def edgar(tmp_path: Path, **kw: Any) -> SecEdgar:
    return SecEdgar(UA, tmp_path / "sec", min_interval=kw.pop("min_interval", 0.0), **kw)


async def test_statements_come_from_filings_made_before_the_call(tmp_path: Path) -> None:
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock)
        fin = await edgar(tmp_path).financials("NWO", CALL)
    dates = [q.fiscalDateEnding for q in fin.ordered()]
    assert date(2026, 6, 30) not in dates  # its 10-Q was filed 2026-08-05, after the call
    latest = fin.most_recent_earnings
    assert latest.fiscalDateEnding == date(2026, 3, 31)
    assert latest.totalRevenue == 600_000_000 and latest.netIncome == 66_000_000
    assert latest.totalAssets == 1_900_000_000 and latest.line("dilutedEPS") == 0.52
    assert fin.previous_earnings is not None
    q4 = fin.previous_earnings  # the fourth quarter: the 10-K's year less nine months
    assert q4.fiscalDateEnding == date(2025, 12, 31)
    assert q4.totalRevenue == 650_000_000 and q4.netIncome == 75_000_000
    assert q4.operatingCashflow == 100_000_000
    assert q4.line("dilutedEPS") is None  # per-share figures are not differences of years
    q2 = next(q for q in fin.ordered() if q.fiscalDateEnding == date(2025, 6, 30))
    assert q2.operatingCashflow == 80_000_000  # half-year less first quarter
    assert fin.same_quarter_last_year_earnings is not None
    assert fin.same_quarter_last_year_earnings.fiscalDateEnding == date(2025, 3, 31)
    assert fin.consensus is None  # EDGAR has no consensus


async def test_release_is_the_calls_8k_exhibit_991_never_a_later_filing(tmp_path: Path) -> None:
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock)
        release = await edgar(tmp_path).release("NWO", CALL)
    assert release.accession == "0000999999-26-000031" and release.filed == CALL
    assert release.document == "nwo-ex991_20260630.htm"
    assert "Revenue of $612 million" in release.text and "<" not in release.text
    assert "Northwind\u2019s outlook for fiscal 2026" in release.text
    assert "Total revenue $ 612.0 $ 500.0" in release.text
    assert "8-K 0000999999-26-000031 exhibit 99.1" in release.source


@pytest.mark.parametrize(
    ("ticker", "call", "says"),
    [
        ("ZZZZ", CALL, "does not know the ticker ZZZZ"),
        ("NWO", date(2026, 6, 15), "NWO: no earnings 8-K (item 2.02) filed from 2026-06-10"),
        ("NWO", date(2026, 1, 28), "NWO: 8-K 0000999999-26-000002 has no exhibit 99.1"),
    ],
)
async def test_release_refusals_name_ticker_and_form(
    tmp_path: Path, ticker: str, call: date, says: str
) -> None:
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock)
        with pytest.raises(VendorError, match=re.escape(says)):
            await edgar(tmp_path).release(ticker, call)


async def test_a_malformed_xbrl_value_names_ticker_form_and_field(tmp_path: Path) -> None:
    facts = json.loads((DATA / "companyfacts_CIK0000999999.json").read_text())
    rows = facts["facts"]["us-gaap"]["NetIncomeLoss"]["units"]["USD"]
    rows[2] = {**rows[2], "val": "60,000,000x"}
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock, facts=facts)
        with pytest.raises(VendorError) as err:
            await edgar(tmp_path).financials("NWO", CALL)
    assert "NWO" in str(err.value) and "10-Q NetIncomeLoss" in str(err.value)
    assert "'60,000,000x' is not a number" in str(err.value)


async def test_sec_needs_a_user_agent_and_keeps_to_its_rate_limit(tmp_path: Path) -> None:
    with pytest.raises(VendorError, match="EDESK_SEC_USER_AGENT"):
        SecEdgar.from_settings(Settings(data_dir=tmp_path, sec_user_agent=""))
    assert SecEdgar.from_settings(Settings(data_dir=tmp_path, sec_user_agent=UA)).http
    client = SecEdgar.from_settings(Settings(data_dir=tmp_path, sec_user_agent=UA))
    assert client.http.min_interval == 0.1  # 10 requests a second
    with respx.mock(assert_all_called=False) as mock:
        routes = mocked(mock)
        start = time.monotonic()
        await client.release("NWO", CALL)  # three requests: tickers, submissions, the filing
        assert time.monotonic() - start >= 0.2
        assert routes["sec"].call_count == 3
        assert all(c.request.headers["user-agent"] == UA for c in routes["sec"].calls)


async def test_answers_are_cached_on_disk_with_their_fetch_time(tmp_path: Path) -> None:
    with respx.mock(assert_all_called=False) as mock:
        routes = mocked(mock)
        client = edgar(tmp_path)
        await client.financials("NWO", CALL)
        assert routes["sec"].call_count == 2 and client.http.requests == 2
        again = edgar(tmp_path)  # a new client reads the same disk cache
        await again.financials("NWO", CALL)
        assert routes["sec"].call_count == 2 and again.http.requests == 0
        stale = edgar(tmp_path, max_age=timedelta(0))
        await stale.financials("NWO", CALL)
        assert routes["sec"].call_count == 4
    records = [json.loads(p.read_text()) for p in (tmp_path / "sec").glob("*.json")]
    assert len(records) == 2 and all(r["fetched_at"] and r["url"] for r in records)


async def test_stooq_prices_stop_before_the_call_and_refuse_gaps(tmp_path: Path) -> None:
    with respx.mock(assert_all_called=False) as mock:
        routes = mocked(mock)
        prices = await Stooq(tmp_path / "stooq", min_interval=0).prices("NWO", CALL)
        assert routes["stooq"].call_count == 2
        await Stooq(tmp_path / "stooq", min_interval=0).prices("NWO", CALL)
        assert routes["stooq"].call_count == 2  # cached
    assert prices.benchmark is not None
    assert max(b.date for b in prices.company.bars) == date(2026, 7, 29)
    assert max(b.date for b in prices.benchmark.bars) == date(2026, 7, 29)
    assert prices.company.symbol == "NWO" and prices.benchmark.symbol == "SPY"
    holes = frozenset(bdays(date(2026, 3, 2), date(2026, 3, 13)))
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock, gaps=holes)
        with pytest.raises(VendorError, match="NWO: no bars from 2026-02-27 to 2026-03-16"):
            await Stooq(tmp_path / "gappy", min_interval=0).prices("NWO", CALL)
        with pytest.raises(VendorError, match=r"no data for ZZZZ \(zzzz.us\)"):
            await Stooq(tmp_path / "gappy", min_interval=0).prices("ZZZZ", CALL)


def test_stooq_rows_that_do_not_parse_name_the_date_and_field() -> None:
    head = "Date,Open,High,Low,Close,Volume\n"
    with pytest.raises(VendorError, match="NWO: 2026-01-05 has no Close"):
        parse_csv("NWO", head + "2026-01-02,1,2,1,2,10\n2026-01-05,1,2,1,,10\n")
    with pytest.raises(VendorError, match="not a price CSV"):
        parse_csv("NWO", "Exceeded the daily hits limit")
    series = parse_csv("NWO", head + "2026-01-02,1,2,1,2,10\n2026-01-05,1,2,1,2,10\n")
    with pytest.raises(VendorError, match="the last bar before the call 2026-03-01 is 2026-01-05"):
        check_gaps(series, date(2026, 3, 1))


async def test_nothing_dated_on_or_after_the_call_reaches_a_pipeline(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, sec_user_agent=UA, alphavantage_api_key=None)
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock)
        filled = await fill(settings, None, "NWO", CALL, None, None)
    assert all(q.fiscalDateEnding < CALL for q in filled.financials.ordered())
    assert all(b.date < CALL for b in filled.prices.company.bars)
    assert filled.prices.benchmark is not None
    assert all(b.date < CALL for b in filled.prices.benchmark.bars)
    assert filled.sources["statements"].startswith("SEC EDGAR XBRL company facts")
    assert filled.sources["prices"] == "Stooq daily CSV (NWO, SPY)"
    assert "EDESK_ALPHAVANTAGE_API_KEY is not set" in filled.sources["consensus"]
    # the call's release (filed on the call date, never after) for the filing check only
    assert filled.sources["release"] == (
        "SEC EDGAR 8-K 0000999999-26-000031 exhibit 99.1, filed 2026-07-30 (4 values for the "
        "filing check)"
    )
    filed = {f.metric: f for f in filled.financials.filed}
    assert filed["revenue"].value == 612e6 and filed["revenue"].period == "Q2 2026"
    assert filed["operating_income"].value == -4.5e6 and filed["eps"].value == 0.56
    assert "Q2 2026" not in filled.financials.figures_text()  # not a figure for the models
    early = await fill(settings, None, "NWO", date(2026, 6, 15), None, None)
    assert early.financials.filed == [] and "no earnings 8-K" in early.sources["release"]
    with pytest.raises(VendorError, match="EDESK_SEC_USER_AGENT"):
        await fill(Settings(data_dir=tmp_path), None, "NWO", CALL, None, None)


@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
def test_analyze_fetch_with_no_key_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("EDESK_ALPHAVANTAGE_API_KEY", raising=False)
    monkeypatch.setenv("EDESK_SEC_USER_AGENT", UA)
    args = ["analyze", str(SAMPLE), "--pipeline", "zero_shot", "--ticker", "NWO", "--fetch",
            "--call-date", "2026-07-30", "--out", str(tmp_path / "out")]  # fmt: skip
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock)
        assert main(args) == EXIT_OK, capsys.readouterr()
    out = capsys.readouterr().out
    assert "statements: SEC EDGAR XBRL company facts" in out
    assert "prices: Stooq daily CSV (NWO, SPY)" in out
    assert "release: SEC EDGAR 8-K 0000999999-26-000031 exhibit 99.1" in out
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    # the verdict is the last cell of the figure's own row in the Call facts table
    revenue = next(ln for ln in md.splitlines() if ln.startswith("| Revenue | $612 million |"))
    assert revenue.endswith(
        "| matches the filing (SEC EDGAR 8-K 0000999999-26-000031 exhibit 99.1, filed "
        "2026-07-30, 'Total revenue $ 612.0 $ 500.0') |"
    )
    income = next(ln for ln in md.splitlines() if ln.startswith("| Operating income | $71 million"))
    assert "| differs from the filing (filed: -$4.5 million; SEC" in income
    with respx.mock(assert_all_called=False) as mock:  # an unknown ticker: a clear refusal
        mocked(mock)
        assert main([*args[:5], "ZZZZ", *args[6:]]) == EXIT_USAGE
    assert "does not know the ticker ZZZZ" in capsys.readouterr().err
    assert main([*args, "--source", "alphavantage"]) == EXIT_USAGE  # asked for, no key
    assert "EDESK_ALPHAVANTAGE_API_KEY" in capsys.readouterr().err


def test_api_fetch_keyless_refuses_before_storing(tmp_path: Path) -> None:
    from tests.app.api_helpers import api, wait_status

    text = SAMPLE.read_text(encoding="utf-8")
    body = {"transcript": text, "pipeline": "zero_shot", "ticker": "NWO", "fetch": True,
            "call_date": "2026-07-30", "source": "keyless"}  # fmt: skip
    with api(tmp_path / "noua") as http:
        refused = http.post("/v1/runs", json=body)
        assert refused.status_code == 422, refused.text
        assert "EDESK_SEC_USER_AGENT" in refused.json()["detail"][0]["msg"]
    with respx.mock(assert_all_called=False) as mock, api(tmp_path, sec_user_agent=UA) as http:
        mock.route(host="testserver").pass_through()
        mocked(mock)
        unknown = http.post("/v1/runs", json={**body, "ticker": "ZZZZ"})
        assert unknown.status_code == 502 and "ZZZZ" in unknown.json()["detail"]
        assert http.get("/v1/runs").json()["total"] == 0
        started = http.post("/v1/runs", json=body)
        assert started.status_code == 202, started.text
        run = wait_status(http, started.json()["id"], {"succeeded", "degraded", "failed"})
    assert run["status"] in ("succeeded", "degraded")


async def test_quarters_carry_their_fiscal_period(tmp_path: Path) -> None:
    """Each quarter is named by the filing that first reported it ("FY" is the fourth quarter);
    a comparative repeated in a later filing does not rename it."""
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock)
        fin = await edgar(tmp_path).financials("NWO", date(2026, 9, 1))
    names = {q.fiscalDateEnding: (q.model_extra or {}).get("fiscalPeriod") for q in fin.ordered()}
    assert names[date(2026, 6, 30)] == "Q2 2026" and names[date(2025, 12, 31)] == "Q4 2025"
    assert names[date(2025, 3, 31)] == "Q1 2025"


def test_backtest_fetch_without_a_key_fills_the_price_folder_from_stooq(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from core.llm.fake import block

    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("EDESK_ALPHAVANTAGE_API_KEY", raising=False)
    ev, prices, calls = tmp_path / "eval", tmp_path / "prices", tmp_path / "calls.csv"
    b = block(("LONG", "LONG", "LONG"), (80, 80, 80))
    recs = [{"horizon": h, **b[k]} for h, k in zip(("1d", "1w", "1m"), b, strict=True)]
    (ev / "reports/local/findebate").mkdir(parents=True)
    (ev / "reports/local/findebate/A.json").write_text(json.dumps({"report": {
        "recommendations": recs}}))  # fmt: skip
    calls.write_text("id,ticker,date\nA,NWO,2026-07-30\n", encoding="utf-8")
    args = ["backtest", str(ev), "--prices", str(prices), "--calls", str(calls), "--fetch"]
    with respx.mock(assert_all_called=False) as mock:
        routes = mocked(mock)
        assert main(args) == EXIT_OK, capsys.readouterr()
        assert routes["stooq"].call_count == 2 and routes["sec"].call_count == 0
    assert sorted(p.name for p in prices.iterdir()) == ["NWO.json", "SPY.json"]
    assert "fetched prices of NWO, SPY" in capsys.readouterr().out
    rows = (ev / "backtest" / "backtest.csv").read_text()  # every cell quoted
    assert '"local/findebate","1m","1","1","0"' in rows  # the month after the call is covered


def test_eval_fetch_fills_each_calls_data_from_recorded_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval --fetch` (issue 39): each call's statements and prices its folder lacks, for its
    manifest's ticker and call_date, keyless (SEC EDGAR and Stooq, recorded); a call without a
    ticker or call date stops the evaluation naming it, before any report runs."""
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("EDESK_ALPHAVANTAGE_API_KEY", raising=False)
    monkeypatch.setenv("EDESK_SEC_USER_AGENT", UA)
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "NWO_q2_2026.txt").write_text(SAMPLE.read_text(encoding="utf-8"))
    manifest = {"items": [{"id": "NWO_q2_2026", "ticker": "NWO", "call_date": "2026-07-30"}]}
    (ds / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "out"
    args = ["eval", str(ds), "--pipelines", "adversarial@S2", "--fetch", "--out", str(out)]
    with respx.mock(assert_all_called=False) as mock:
        mocked(mock)
        assert main(args) == EXIT_OK, capsys.readouterr()
    printed = capsys.readouterr().out
    assert "NWO_q2_2026: market data:" in printed and "Stooq daily CSV (NWO, SPY)" in printed
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "| NWO_q2_2026 | yes | yes |" in summary
    del manifest["items"][0]["call_date"]
    (ds / "manifest.json").write_text(json.dumps(manifest))
    assert main([*args[:-1], str(tmp_path / "out2")]) == EXIT_USAGE
    assert "--fetch: NWO_q2_2026 needs a ticker and a call_date" in capsys.readouterr().err
    assert not (tmp_path / "out2" / "summary.md").exists()
