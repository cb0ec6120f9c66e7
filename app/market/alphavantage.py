"""Market data by ticker from Alpha Vantage, the papers' source (`EDESK_ALPHAVANTAGE_API_KEY`):
quarterly income statement, balance sheet and cash flow, daily prices of the company and the
benchmark, and the EARNINGS endpoint's reported vs estimated EPS for the call's quarter.

- Responses are cached on disk (`<data_dir>/alphavantage/`) with their fetch time and reused
  while younger than `max_age`; a cached answer costs no request.
- Requests are spaced at least `min_interval` seconds apart (the free tier's documented 5 a
  minute by default): callers queue and wait, nothing is sent in a burst.
- The vendor answers errors with HTTP 200 and a body of "Error Message" (e.g. an unknown
  ticker), "Note" or "Information" (rate limits, premium endpoints): each becomes a
  `VendorError` naming the ticker and the endpoint, never a silent empty result.
- Nothing dated on or after the call date reaches a pipeline: prices are cut by `Prices(as_of)`,
  statements keep quarters that ended before the call, and of the EARNINGS rows only the one the
  call itself reported (reportedDate = the call date, or the last before it) is kept.
- The API key travels only in the request's query string: never in an error, a log line or
  the cache (httpx's request logging is at WARNING).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from app.market.http import VendorError
from app.settings import Settings
from core.inputs import (
    EpsConsensus,
    Financials,
    Prices,
    PriceSeries,
    QuarterStatement,
    financials_of,
)

URL = "https://www.alphavantage.co/query"
STATEMENTS = ("INCOME_STATEMENT", "BALANCE_SHEET", "CASH_FLOW")
__all__ = ["URL", "AlphaVantage", "VendorError"]


class AlphaVantage:
    def __init__(
        self,
        api_key: SecretStr | str,
        cache_dir: Path,
        *,
        min_interval: float = 12.0,
        max_age: timedelta = timedelta(days=1),
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if not api_key:
            raise VendorError("EDESK_ALPHAVANTAGE_API_KEY is not set")
        self._key = SecretStr(api_key) if isinstance(api_key, str) else api_key
        self.cache_dir = cache_dir
        self.min_interval = min_interval
        self.max_age = max_age
        self._client = client
        self._gate = asyncio.Lock()
        self._last = 0.0
        self.requests = 0  # sent to the vendor (cache hits excluded)

    @classmethod
    def from_settings(cls, settings: Settings) -> AlphaVantage:
        """The client the settings describe; a VendorError naming the setting without a key."""
        if not settings.alphavantage_api_key:
            raise VendorError("--fetch needs EDESK_ALPHAVANTAGE_API_KEY")
        return cls(
            settings.alphavantage_api_key,
            settings.data_dir / "alphavantage",
            min_interval=settings.alphavantage_min_interval,
        )

    def _cache_path(self, function: str, symbol: str, params: dict[str, str]) -> Path:
        extra = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]
        safe = "".join(c for c in symbol.upper() if c.isalnum() or c in ".-")
        return self.cache_dir / f"{function}_{safe}_{extra}.json"

    async def query(self, function: str, symbol: str, **params: str) -> dict[str, Any]:
        """One endpoint's JSON for `symbol`: from the cache while fresh, else fetched (after
        waiting out the rate limit) and cached with its fetch time."""
        path = self._cache_path(function, symbol, params)
        if path.is_file():
            cached = json.loads(path.read_text(encoding="utf-8"))
            fetched = datetime.fromisoformat(cached["fetched_at"])
            if datetime.now(UTC) - fetched < self.max_age:
                return dict(cached["response"])
        async with self._gate:  # one request at a time, spaced by min_interval
            wait = self._last + self.min_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                body = await self._get({"function": function, "symbol": symbol, **params})
            finally:
                self._last = time.monotonic()
                self.requests += 1
        refusal = next(
            (body[k] for k in ("Error Message", "Note", "Information") if k in body), None
        )
        if refusal is not None or not body:
            why = str(refusal or "an empty answer").replace(self._key.get_secret_value(), "***")
            raise VendorError(f"Alpha Vantage {function} for {symbol}: {why}")
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        record = {"fetched_at": datetime.now(UTC).isoformat(), "function": function,
                  "symbol": symbol, "params": params, "response": body}  # fmt: skip
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        tmp.replace(path)
        return body

    async def _get(self, params: dict[str, str]) -> dict[str, Any]:
        what = f"Alpha Vantage {params['function']} for {params['symbol']}"
        client = self._client or httpx.AsyncClient(timeout=30.0)
        try:
            key = self._key.get_secret_value()
            resp = await client.get(URL, params={**params, "apikey": key})
        except httpx.HTTPError as exc:
            raise VendorError(f"{what}: {type(exc).__name__}") from None
        finally:
            if self._client is None:
                await client.aclose()
        if resp.status_code != 200:
            raise VendorError(f"{what}: HTTP {resp.status_code}")
        try:
            body = resp.json()
        except ValueError:
            raise VendorError(f"{what}: the answer is not JSON") from None
        if not isinstance(body, dict):
            raise VendorError(f"{what}: unexpected answer")
        return body

    async def financials(self, ticker: str, call_date: date, quarters: int = 8) -> Financials:
        """The quarters that ended before the call, newest first, from the three statements."""
        merged: dict[str, dict[str, Any]] = {}
        for function in STATEMENTS:
            body = await self.query(function, ticker)
            for row in body.get("quarterlyReports") or []:
                day = str(row.get("fiscalDateEnding", ""))
                merged.setdefault(day, {}).update(row)
        rows = sorted(
            (r for d, r in merged.items() if d and date.fromisoformat(d) < call_date),
            key=lambda r: str(r["fiscalDateEnding"]),
            reverse=True,
        )[:quarters]
        if not rows:
            raise VendorError(
                f"Alpha Vantage statements for {ticker}: no quarter ended before {call_date}"
            )
        statements = [QuarterStatement.model_validate(r) for r in rows]
        return financials_of(
            statements, ticker=ticker, consensus=await self.consensus(ticker, call_date)
        )

    async def consensus(self, ticker: str, call_date: date) -> EpsConsensus | None:
        """EARNINGS' row for the call: reported on the call date (or the last before it)."""
        body = await self.query("EARNINGS", ticker)
        rows = [
            r for r in body.get("quarterlyEarnings") or []
            if r.get("reportedDate") and date.fromisoformat(r["reportedDate"]) <= call_date
        ]  # fmt: skip
        if not rows:
            return None
        row = max(rows, key=lambda r: str(r["reportedDate"]))
        fields = set(EpsConsensus.model_fields) - {"source"}
        return EpsConsensus.model_validate({k: v for k, v in row.items() if k in fields})

    async def prices(self, ticker: str, call_date: date, benchmark: str = "SPY") -> Prices:
        """Daily bars of the company and the benchmark dated before the call."""
        company = PriceSeries.model_validate(
            await self.query("TIME_SERIES_DAILY", ticker, outputsize="full")
        )
        bench = PriceSeries.model_validate(
            await self.query("TIME_SERIES_DAILY", benchmark, outputsize="full")
        )
        return Prices(company=company, benchmark=bench, as_of=call_date)

    async def fill(
        self,
        ticker: str,
        call_date: date,
        financials: Financials | None,
        prices: Prices | None,
        benchmark: str | None = None,
    ) -> tuple[Financials, Prices]:
        """What a run was not given, fetched for the call (`analyze --fetch`, the API's
        `fetch`): statements with the EPS consensus, and prices up to the day before."""
        if financials is None:
            financials = await self.financials(ticker, call_date)
        if prices is None:
            prices = await self.prices(ticker, call_date, benchmark or "SPY")
        return financials, prices

    async def series(self, symbol: str) -> PriceSeries:
        """Every daily bar the vendor has for `symbol` (the backtest's after-call windows)."""
        return PriceSeries.model_validate(
            await self.query("TIME_SERIES_DAILY", symbol, outputsize="full")
        )
