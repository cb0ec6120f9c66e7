"""Market data by ticker: Alpha Vantage (key), SEC EDGAR and Stooq (keyless)."""

from typing import Literal

# auto: Alpha Vantage when EDESK_ALPHAVANTAGE_API_KEY is set, else keyless;
# alphavantage: statements, prices and the EPS consensus from Alpha Vantage;
# keyless: statements from SEC EDGAR, prices from Stooq (and the consensus from Alpha Vantage
# only if a key is set).
MarketSource = Literal["auto", "alphavantage", "keyless"]
