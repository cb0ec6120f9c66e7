"""Daily prices without a key from Stooq's CSV download (`https://stooq.com/q/d/l/?s=aapl.us&i=d`).

Plain httpx (one GET per symbol) rather than yfinance: Stooq publishes a documented CSV and
needs no session or cookie, so its answers replay offline with respx like the other sources;
yfinance scrapes Yahoo through curl_cffi, which an httpx mock cannot serve.

- Answers cached on disk with their fetch time (`<data_dir>/stooq/`), requests spaced
  `min_interval` seconds apart.
- No look-ahead: `prices()` returns `Prices(as_of=call_date)`, which drops every bar dated on
  or after the call before a pipeline sees it.
- A symbol Stooq does not know ("No data"), a row that does not parse, or a gap of more than
  `MAX_GAP_DAYS` calendar days in the year before the call: a `VendorError` naming the symbol
  and the date or field.
"""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from pathlib import Path

import httpx
from pydantic import ValidationError

from app.market.http import CachedGet, VendorError
from app.settings import Settings
from core.inputs import Prices, PriceSeries

URL = "https://stooq.com/q/d/l/?s={symbol}&i=d"
SOURCE = "Stooq daily CSV"
MAX_GAP_DAYS = 7  # the longest US market closure since 1933 (September 2001) was 6 days
COLUMNS = ("Date", "Open", "High", "Low", "Close")


def stooq_symbol(ticker: str) -> str:
    """US tickers on Stooq: lower case, '.us', a class dot as a dash (BRK.B -> brk-b.us)."""
    return f"{ticker.lower().replace('.', '-')}.us"


class Stooq:
    def __init__(
        self,
        cache_dir: Path,
        *,
        min_interval: float = 1.0,
        max_age: timedelta = timedelta(days=1),
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.http = CachedGet(
            SOURCE, cache_dir, min_interval=min_interval, max_age=max_age, client=client
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Stooq:
        return cls(settings.data_dir / "stooq")

    async def series(self, ticker: str) -> PriceSeries:
        """Every daily bar Stooq has for `ticker`, oldest first."""
        body = await self.http.text(URL.format(symbol=stooq_symbol(ticker)), f"for {ticker}")
        return parse_csv(ticker, body or "")

    async def prices(self, ticker: str, call_date: date, benchmark: str = "SPY") -> Prices:
        """Daily bars of the company and the benchmark dated before the call, with no gap."""
        company = await self.series(ticker)
        bench = await self.series(benchmark)
        try:
            prices = Prices(company=company, benchmark=bench, as_of=call_date)
        except ValidationError as exc:
            raise VendorError(f"{SOURCE} for {ticker}: {exc.errors()[0]['msg']}") from None
        for series in (prices.company, prices.benchmark):
            if series is not None:
                check_gaps(series, call_date)
        return prices


def parse_csv(ticker: str, body: str) -> PriceSeries:
    """Stooq's CSV as a PriceSeries; a VendorError naming the symbol and the row otherwise."""
    text = body.strip()
    if not text or text.lower().startswith("no data"):
        raise VendorError(f"{SOURCE} has no data for {ticker} ({stooq_symbol(ticker)})")
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or any(c not in reader.fieldnames for c in COLUMNS):
        raise VendorError(f"{SOURCE} for {ticker}: not a price CSV ({text[:60]!r})")
    bars = []
    for row in reader:
        day = row.get("Date", "")
        for field in COLUMNS[1:]:
            if not (row.get(field) or "").strip():
                raise VendorError(f"{SOURCE} for {ticker}: {day} has no {field}")
        bars.append({"date": day, "open": row["Open"], "high": row["High"], "low": row["Low"],
                     "close": row["Close"], "volume": row.get("Volume") or 0})  # fmt: skip
    try:
        return PriceSeries(symbol=ticker.upper(), bars=bars)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise VendorError(f"{SOURCE} for {ticker}: {where}: {first['msg']}") from None


def check_gaps(series: PriceSeries, call_date: date, days: int = 400) -> None:
    """A VendorError if the bars in the `days` before the call skip more than MAX_GAP_DAYS."""
    recent = [b.date for b in series.bars if b.date >= call_date - timedelta(days=days)]
    if not recent or (call_date - recent[-1]).days > MAX_GAP_DAYS:
        last = recent[-1] if recent else series.bars[-1].date
        raise VendorError(
            f"{SOURCE} for {series.symbol}: the last bar before the call {call_date} is {last}"
        )
    for before, after in zip(recent, recent[1:], strict=False):
        if (after - before).days > MAX_GAP_DAYS:
            raise VendorError(
                f"{SOURCE} for {series.symbol}: no bars from {before} to {after} "
                f"({(after - before).days} days): the price file has a gap"
            )
