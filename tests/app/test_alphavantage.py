"""Market data by ticker from Alpha Vantage, offline: recorded answers in the vendor's documented
layouts (tests/app/data/alphavantage.json, a fictional company) served by respx, no network.
Covers what reaches a pipeline (nothing dated on or after the call), the disk cache, the rate
limit, the vendor's refusals as clear errors, and `analyze --fetch` end to end."""

from __future__ import annotations

import json
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from app.cli import EXIT_OK, EXIT_USAGE, main
from app.market.alphavantage import URL, AlphaVantage, VendorError
from tests.conftest import SAMPLE

DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "alphavantage.json").read_text(encoding="utf-8")
)
CALL = date(2026, 7, 30)
KEY = "SECRETKEY"


def vendor(request: httpx.Request, *, overrides: dict[str, str] | None = None) -> httpx.Response:
    params = dict(request.url.params)
    assert params["apikey"] == KEY
    function, symbol = params["function"], params["symbol"]
    name = (overrides or {}).get(f"{function}:{symbol}") or (overrides or {}).get(function)
    if name is None:
        name = f"{function}:{symbol}" if function == "TIME_SERIES_DAILY" else function
    if symbol == "ZZZZ":
        name = "error"
    return httpx.Response(200, json=DATA[name])


def client(tmp_path: Path, **kw: Any) -> AlphaVantage:
    return AlphaVantage(KEY, tmp_path / "cache", min_interval=kw.pop("min_interval", 0.0), **kw)


async def test_statements_prices_and_consensus_stop_before_the_call(tmp_path: Path) -> None:
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(side_effect=vendor)
        av = client(tmp_path)
        fin = await av.financials("NWO", CALL)
        prices = await av.prices("NWO", CALL)
    dates = [q.fiscalDateEnding for q in fin.ordered()]
    assert max(dates) == date(2026, 6, 30) and date(2026, 9, 30) not in dates
    latest = fin.most_recent_earnings
    assert latest.totalRevenue == 612_000_000 and latest.line("totalAssets") == 2_000_000_000
    assert latest.line("operatingCashflow") == 90_000_000  # the three statements, merged
    assert fin.previous_earnings is not None
    assert fin.previous_earnings.fiscalDateEnding == date(2026, 3, 31)
    assert fin.same_quarter_last_year_earnings is not None
    assert fin.same_quarter_last_year_earnings.fiscalDateEnding == date(2025, 6, 30)
    assert fin.consensus is not None and fin.consensus.reportedDate == CALL
    text = fin.consensus.text()
    assert "1.31 vs consensus estimate 1.25: beat by 0.06 (+4.8%)" in text
    assert "Alpha Vantage EARNINGS (data vendor)" in text
    assert max(b.date for b in prices.company.bars) < CALL  # no look-ahead
    assert prices.benchmark is not None and max(b.date for b in prices.benchmark.bars) < CALL
    assert prices.company.symbol == "NWO" and prices.benchmark.symbol == "SPY"


async def test_answers_are_cached_with_their_fetch_time(tmp_path: Path) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).mock(side_effect=vendor)
        av = client(tmp_path)
        await av.financials("NWO", CALL)
        sent = route.call_count
        assert sent == 4  # three statements and EARNINGS
        again = client(tmp_path)
        await again.financials("NWO", CALL)
        assert route.call_count == sent and again.requests == 0
        files = list((tmp_path / "cache").glob("*.json"))
        assert len(files) == 4
        for f in files:
            stored = json.loads(f.read_text())
            assert stored["fetched_at"] and KEY not in f.read_text()
        stale = client(tmp_path, max_age=timedelta(0))
        await stale.financials("NWO", CALL)
        assert route.call_count == sent + 4  # too old: fetched again


async def test_requests_are_spaced_by_the_rate_limit(tmp_path: Path) -> None:
    stamps: list[float] = []

    def timed(request: httpx.Request) -> httpx.Response:
        stamps.append(time.monotonic())
        return vendor(request)

    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(side_effect=timed)
        av = client(tmp_path, min_interval=0.2)
        await av.financials("NWO", CALL)  # four requests, queued
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    assert len(stamps) == 4 and min(gaps) >= 0.19


@pytest.mark.parametrize(
    ("override", "symbol", "says"),
    [
        ({"TIME_SERIES_DAILY:NWO": "note"}, "NWO", "5 calls per minute"),
        ({"TIME_SERIES_DAILY:NWO": "information"}, "NWO", "25 requests per day"),
        ({}, "ZZZZ", "Invalid API call"),
    ],
)
async def test_vendor_refusals_name_ticker_and_endpoint(
    tmp_path: Path, override: dict[str, str], symbol: str, says: str
) -> None:
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(side_effect=lambda r: vendor(r, overrides=override))
        av = client(tmp_path)
        with pytest.raises(VendorError) as err:
            await av.prices(symbol, CALL)
    message = str(err.value)
    assert f"Alpha Vantage TIME_SERIES_DAILY for {symbol}" in message and says in message
    assert KEY not in message  # the vendor echoes the key in some answers: masked
    assert not list((tmp_path / "cache").glob(f"TIME_SERIES_DAILY_{symbol}*"))  # not cached


async def test_http_failures_are_vendor_errors(tmp_path: Path) -> None:
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(return_value=httpx.Response(503))
        with pytest.raises(VendorError, match="EARNINGS for NWO: HTTP 503"):
            await client(tmp_path).consensus("NWO", CALL)


def test_analyze_fetch_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDESK_ALPHAVANTAGE_MIN_INTERVAL", "0")
    args = ["analyze", str(SAMPLE), "--pipeline", "zero_shot", "--ticker", "NWO", "--fetch",
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert main([*args, "--call-date", "2026-07-30"]) == EXIT_USAGE
    assert "EDESK_ALPHAVANTAGE_API_KEY" in capsys.readouterr().err
    monkeypatch.setenv("EDESK_ALPHAVANTAGE_API_KEY", KEY)
    assert main(args) == EXIT_USAGE and "--call-date" in capsys.readouterr().err
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).mock(side_effect=vendor)
        assert main([*args, "--call-date", "2026-07-30"]) == EXIT_OK, capsys.readouterr()
    md = (tmp_path / "out" / "report.md").read_text()
    assert "**Against consensus (data vendor):** Reported EPS 1.31" in md
    with respx.mock(assert_all_called=False) as mock:  # an unknown ticker: a clear refusal
        mock.get(URL).mock(side_effect=vendor)
        bad = ["analyze", str(SAMPLE), "--ticker", "ZZZZ", "--fetch", "--call-date", "2026-07-30"]
        assert main(bad) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "Alpha Vantage" in err and "ZZZZ" in err and KEY not in err


def test_backtest_fetch_fills_the_price_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`backtest --fetch`: the call's ticker and the benchmark come from the vendor into the
    price folder (as plain series), then the calls are scored against them."""
    from core.llm.fake import block

    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDESK_ALPHAVANTAGE_MIN_INTERVAL", "0")
    ev, prices, calls = tmp_path / "eval", tmp_path / "prices", tmp_path / "calls.csv"
    b = block(("LONG", "LONG", "LONG"), (80, 80, 80))
    recs = [{"horizon": h, **b[k]} for h, k in zip(("1d", "1w", "1m"), b, strict=True)]
    (ev / "reports/local/findebate").mkdir(parents=True)
    (ev / "reports/local/findebate/A.json").write_text(json.dumps({"report": {
        "recommendations": recs}}))  # fmt: skip
    calls.write_text("id,ticker,date\nA,NWO,2026-07-01\n", encoding="utf-8")
    args = ["backtest", str(ev), "--prices", str(prices), "--calls", str(calls), "--fetch"]
    no_key = [*args, "--source", "alphavantage"]  # asked for by name: refused without a key
    assert main(no_key) == EXIT_USAGE and "EDESK_ALPHAVANTAGE_API_KEY" in capsys.readouterr().err
    monkeypatch.setenv("EDESK_ALPHAVANTAGE_API_KEY", KEY)
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).mock(side_effect=vendor)
        assert main(args) == EXIT_OK, capsys.readouterr()
        assert route.call_count == 2  # NWO and SPY
    assert sorted(p.name for p in prices.iterdir()) == ["NWO.json", "SPY.json"]
    assert "fetched prices of NWO, SPY" in capsys.readouterr().out
    assert (ev / "backtest" / "backtest.csv").is_file()


def test_api_fetch_fills_a_run_from_the_vendor(tmp_path: Path) -> None:
    """The API's `fetch` field: statements, consensus and prices before the call reach the run;
    refusals name the field or setting, vendor refusals are a 502 naming ticker and endpoint,
    and nothing is stored for a refused run."""
    from tests.app.api_helpers import api, wait_status

    text = SAMPLE.read_text(encoding="utf-8")
    body = {"transcript": text, "pipeline": "zero_shot", "ticker": "NWO", "fetch": True,
            "call_date": "2026-07-30"}  # fmt: skip
    with api(tmp_path / "nokey") as http:
        refused = http.post("/v1/runs", json=body)
        assert refused.status_code == 422
        assert refused.json()["detail"][0]["loc"] == ["body", "fetch"]
        assert "EDESK_ALPHAVANTAGE_API_KEY" in refused.json()["detail"][0]["msg"]
    with (
        respx.mock(assert_all_called=False) as mock,
        api(tmp_path, alphavantage_api_key=KEY, alphavantage_min_interval=0.0) as http,
    ):
        mock.route(host="testserver").pass_through()
        mock.get(URL).mock(side_effect=vendor)
        no_date = http.post("/v1/runs", json={**body, "call_date": None})
        assert no_date.status_code == 422 and no_date.json()["detail"][0]["loc"][1] == "call_date"
        unknown = http.post("/v1/runs", json={**body, "ticker": "ZZZZ"})
        assert unknown.status_code == 502
        assert "ZZZZ" in unknown.json()["detail"] and KEY not in unknown.text
        assert http.get("/v1/runs").json()["total"] == 0  # refused runs leave nothing
        started = http.post("/v1/runs", json=body)
        assert started.status_code == 202, started.text
        run = wait_status(http, started.json()["id"], {"succeeded", "degraded", "failed"})
    md = run["report"]["markdown"]
    assert "Against consensus (data vendor):** Reported EPS 1.31" in md
