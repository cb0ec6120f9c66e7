"""What `--fetch` (and the API's `fetch`) fills in, from the source the request or the settings
choose, and which source each input came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from pydantic import ValidationError

from app.market import MarketSource
from app.market.alphavantage import AlphaVantage
from app.market.http import VendorError
from app.market.sec import SOURCE as SEC_SOURCE
from app.market.sec import SecEdgar
from app.market.stooq import SOURCE as STOOQ_SOURCE
from app.market.stooq import Stooq
from app.settings import Settings
from core.filing import release_values
from core.inputs import Financials, InputError, Prices, before_the_call

AV_SOURCE = "Alpha Vantage"


@dataclass
class Filled:
    financials: Financials
    prices: Prices
    sources: dict[str, str] = field(default_factory=dict)  # input -> where it came from

    def describe(self) -> str:
        return "; ".join(f"{k}: {v}" for k, v in self.sources.items())


def resolve_source(requested: MarketSource | None, settings: Settings) -> MarketSource:
    """The request's source beats the setting; auto = Alpha Vantage with a key, else keyless."""
    chosen = requested or settings.market_source
    if chosen == "auto":
        return "alphavantage" if settings.alphavantage_api_key else "keyless"
    return chosen


async def fill(
    settings: Settings,
    requested: MarketSource | None,
    ticker: str,
    call_date: date,
    financials: Financials | None,
    prices: Prices | None,
    benchmark: str | None = None,
) -> Filled:
    """What a run was not given, for the call: nothing dated on or after `call_date`. A
    VendorError (naming the source, ticker and field or setting) when it cannot be filled."""
    source = resolve_source(requested, settings)
    if (
        source == "keyless"
        and (requested or settings.market_source) == "auto"
        and financials is None
        and not settings.sec_user_agent.strip()
    ):
        raise VendorError(
            "--fetch needs EDESK_ALPHAVANTAGE_API_KEY (Alpha Vantage) or EDESK_SEC_USER_AGENT "
            "(keyless: SEC EDGAR statements, Stooq prices)"
        )
    bench = benchmark or "SPY"
    sources: dict[str, str] = {}
    if financials is not None:
        sources["statements"] = "given"
    if prices is not None:
        sources["prices"] = "given"
    try:
        if source == "alphavantage":
            vendor = AlphaVantage.from_settings(settings)
            if financials is None:
                financials = await vendor.financials(ticker, call_date)
                sources["statements"] = f"{AV_SOURCE} statements"
                sources["consensus"] = (
                    f"{AV_SOURCE} EARNINGS" if financials.consensus else "none for this quarter"
                )
            if prices is None:
                prices = await vendor.prices(ticker, call_date, bench)
                sources["prices"] = f"{AV_SOURCE} TIME_SERIES_DAILY ({ticker}, {bench})"
        else:
            if financials is None:
                sec = SecEdgar.from_settings(settings)
                financials = await sec.financials(ticker, call_date)
                sources["statements"] = f"{SEC_SOURCE} XBRL company facts (filed before the call)"
                try:  # the release is for the filing check only: without one the run goes on
                    release = await sec.release(ticker, call_date)
                except VendorError as exc:
                    sources["release"] = f"none ({exc})"
                else:
                    values = release_values(release.text, release.source)
                    financials = financials.model_copy(update={"filed": values})
                    sources["release"] = (
                        f"{release.source} ({len(values)} values for the filing check)"
                    )
                if settings.alphavantage_api_key:
                    consensus = await AlphaVantage.from_settings(settings).consensus(
                        ticker, call_date
                    )
                    financials = financials.model_copy(update={"consensus": consensus})
                    sources["consensus"] = (
                        f"{AV_SOURCE} EARNINGS" if consensus else "none for this quarter"
                    )
                else:
                    sources["consensus"] = "none (EDESK_ALPHAVANTAGE_API_KEY is not set)"
            if prices is None:
                prices = await Stooq.from_settings(settings).prices(ticker, call_date, bench)
                sources["prices"] = f"{STOOQ_SOURCE} ({ticker}, {bench})"
    except ValidationError as exc:
        raise VendorError(f"market data for {ticker}: the answer did not parse: {exc}") from None
    # given or fetched: nothing dated on or after the call reaches a run (no look-ahead)
    try:
        cut_financials, cut_prices = before_the_call(financials, prices, call_date)
    except InputError as exc:
        raise VendorError(f"statements for {ticker}: {exc}") from None
    assert cut_financials is not None and cut_prices is not None
    for name, note in (("cut", cut_prices.cut), ("cut statements", cut_financials.cut)):
        if note:
            sources[name] = note
    return Filled(financials=cut_financials, prices=cut_prices, sources=sources)
