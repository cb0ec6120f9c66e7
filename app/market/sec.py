"""SEC EDGAR, keyless (`EDESK_SEC_USER_AGENT`, the contact SEC asks every client to send):
quarterly statements from the XBRL company facts and the earnings release (8-K item 2.02,
exhibit 99.1) of the call.

Plain httpx against EDGAR's JSON endpoints rather than edgartools: the three documents we need
(company_tickers.json, submissions, companyfacts) and one filing's full text are four GETs, and
going through our own client keeps the disk cache with fetch time, the rate gate and the errors
the same as Alpha Vantage's, and makes every answer replayable offline with respx. edgartools
5.62.1 was measured (`bench/edgartools.py`, docs/configuration.md "Why not edgartools"): it
resolves under our pins and its APIs give what we need, but it reads its identity from the
process environment, keeps parsed company facts in a process-wide memo that served a changed
answer with no request, fixes its HTTP cache (~/.edgar, its own expiry) at import, turns a
malformed value into None without an error, is synchronous, and adds ~210 MB (pyarrow 171 MB)
and 2-4 s of import.

- At most 10 requests a second (SEC's published fair-access limit), answers cached on disk.
- Nothing filed on or after the call reaches a pipeline: a statement value counts only if the
  filing that reported it was filed before the call date. The release is the 8-K with item
  2.02 filed on the call date or up to `RELEASE_DAYS` before it, never after.
- An unknown ticker, a quarter without a release, a release without exhibit 99.1, a value that
  is not a number: each a `VendorError` naming the ticker, the form and the field.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx

from app.market.http import CachedGet, VendorError
from app.settings import Settings
from core.inputs import Financials, QuarterStatement, financials_of

TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"
SUBMISSIONS_URL = "https://data.sec.gov/submissions/CIK{cik:010d}.json"
FACTS_URL = "https://data.sec.gov/api/xbrl/companyfacts/CIK{cik:010d}.json"
ARCHIVE_URL = "https://www.sec.gov/Archives/edgar/data/{cik}/{folder}/{accession}.txt"
MIN_INTERVAL = 0.1  # SEC: no more than 10 requests per second
RELEASE_DAYS = 5  # a release filed the evening before (or a few days before) the call counts
SOURCE = "SEC EDGAR"

# Statement lines (Alpha Vantage names, as `QuarterStatement` has them) from us-gaap concepts,
# the first concept a company reports wins. Balance-sheet lines are instants, the rest flows.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "totalRevenue": ("Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax",
                     "SalesRevenueNet"),
    "costOfRevenue": ("CostOfRevenue", "CostOfGoodsAndServicesSold"),
    "grossProfit": ("GrossProfit",),
    "operatingExpenses": ("OperatingExpenses", "CostsAndExpenses"),
    "sellingGeneralAndAdministrative": ("SellingGeneralAndAdministrativeExpense",),
    "researchAndDevelopment": ("ResearchAndDevelopmentExpense",),
    "operatingIncome": ("OperatingIncomeLoss",),
    "interestExpense": ("InterestExpense",),
    "incomeBeforeTax": (
        "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
        "IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
    ),
    "incomeTaxExpense": ("IncomeTaxExpenseBenefit",),
    "netIncomeFromContinuingOperations": ("IncomeLossFromContinuingOperations",),
    "netIncome": ("NetIncomeLoss",),
    "totalAssets": ("Assets",),
    "totalLiabilities": ("Liabilities",),
    "totalShareholderEquity": ("StockholdersEquity",),
    "cashAndCashEquivalentsAtCarryingValue": ("CashAndCashEquivalentsAtCarryingValue",),
    "operatingCashflow": ("NetCashProvidedByUsedInOperatingActivities",),
    "capitalExpenditures": ("PaymentsToAcquirePropertyPlantAndEquipment",),
    "dilutedEPS": ("EarningsPerShareDiluted",),
    "basicEPS": ("EarningsPerShareBasic",),
}  # fmt: skip
INSTANTS = frozenset(
    {"totalAssets", "totalLiabilities", "totalShareholderEquity",
     "cashAndCashEquivalentsAtCarryingValue"}
)  # fmt: skip
PER_SHARE = frozenset({"dilutedEPS", "basicEPS"})  # not additive: no year-to-date difference
QUARTER_DAYS = range(80, 101)


@dataclass(frozen=True)
class Fact:
    """One XBRL value as the company facts give it."""

    concept: str
    start: date | None
    end: date
    value: float
    form: str
    accession: str
    filed: date
    unit: str
    fiscal: str | None = None  # the reporting filing's fiscal period: Q1..Q3, FY


@dataclass(frozen=True)
class Release:
    """The earnings release (8-K exhibit 99.1) of a call."""

    ticker: str
    cik: int
    accession: str
    filed: date
    report_date: date | None
    document: str
    text: str

    @property
    def source(self) -> str:
        return f"{SOURCE} 8-K {self.accession} exhibit 99.1, filed {self.filed}"


def _html_text(raw: str) -> str:
    """Readable text of an HTML exhibit: tags dropped, table cells apart, entities decoded."""
    raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
    raw = re.sub(r"(?i)<\s*(br|/p|/div|/tr|/h\d)\b[^>]*>", "\n", raw)
    raw = re.sub(r"(?i)<\s*/t[dh]\s*>", " \t ", raw)
    text = html.unescape(re.sub(r"<[^>]+>", " ", raw)).replace("\xa0", " ")
    lines = (re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


class SecEdgar:
    def __init__(
        self,
        user_agent: str,
        cache_dir: Path,
        *,
        min_interval: float = MIN_INTERVAL,
        max_age: timedelta = timedelta(days=1),
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if not user_agent.strip():
            raise VendorError("SEC EDGAR needs EDESK_SEC_USER_AGENT (a name and an email)")
        self.http = CachedGet(
            SOURCE,
            cache_dir,
            min_interval=max(min_interval, 0.0),
            max_age=max_age,
            headers={"User-Agent": user_agent, "Accept-Encoding": "gzip, deflate"},
            client=client,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> SecEdgar:
        """The client the settings describe; a VendorError naming the setting without one."""
        if not settings.sec_user_agent.strip():
            raise VendorError(
                "SEC EDGAR needs EDESK_SEC_USER_AGENT: SEC asks every client for a name and a "
                "contact email (e.g. 'Jane Doe jane@example.com')"
            )
        return cls(settings.sec_user_agent, settings.data_dir / "sec")

    async def cik(self, ticker: str) -> int:
        body = await self.http.json(TICKERS_URL, "company_tickers.json")
        rows = body.values() if isinstance(body, dict) else []
        wanted = ticker.upper().replace(".", "-")
        for row in rows:
            if isinstance(row, dict) and str(row.get("ticker", "")).upper() == wanted:
                return int(row["cik_str"])
        raise VendorError(f"{SOURCE} does not know the ticker {ticker} (company_tickers.json)")

    async def facts(self, ticker: str) -> list[Fact]:
        """Every us-gaap value the statements use, as filed (all filing dates)."""
        cik = await self.cik(ticker)
        body = await self.http.json(FACTS_URL.format(cik=cik), f"company facts for {ticker}")
        if not isinstance(body, dict):
            raise VendorError(f"{SOURCE} has no XBRL company facts for {ticker} (CIK {cik})")
        gaap = (body.get("facts") or {}).get("us-gaap") or {}
        out: list[Fact] = []
        for concepts in CONCEPTS.values():
            for concept in concepts:
                for unit, rows in ((gaap.get(concept) or {}).get("units") or {}).items():
                    out += [_fact(ticker, concept, unit, row) for row in rows]
        return out

    async def financials(self, ticker: str, call_date: date, quarters: int = 8) -> Financials:
        """The quarters filed before the call, newest first, from the XBRL company facts."""
        known = [f for f in await self.facts(ticker) if f.filed < call_date]
        # a quarter's end: any period end of a 10-Q or 10-K (the fourth quarter has no
        # quarter-long value of its own, only the year's)
        ends = sorted({f.end for f in known if f.form.startswith(("10-Q", "10-K"))}, reverse=True)
        ends = ends[:quarters]
        statements = []
        for end in ends:
            row: dict[str, Any] = {"fiscalDateEnding": end.isoformat()}
            first = _first_report(known, end)
            if first is not None and first.fiscal:
                fp, fy = first.fiscal.split()
                row["fiscalPeriod"] = f"{'Q4' if fp == 'FY' else fp} {fy}"
                row["source"] = f"{SOURCE} {first.form} {first.accession} filed {first.filed}"
            for line, concepts in CONCEPTS.items():
                value = _quarter_value(
                    known, concepts, end, instant=line in INSTANTS, additive=line not in PER_SHARE
                )
                if value is not None:
                    row[line] = value
            statements.append(QuarterStatement.model_validate(row))
        if not statements:
            raise VendorError(
                f"{SOURCE} XBRL for {ticker}: no quarter filed (10-Q/10-K) before {call_date}"
            )
        return financials_of(statements, ticker=ticker)

    async def release(self, ticker: str, call_date: date) -> Release:
        """The call's earnings release: the last 8-K with item 2.02 filed on the call date or
        up to RELEASE_DAYS before it, and its exhibit 99.1 as text."""
        cik = await self.cik(ticker)
        body = await self.http.json(SUBMISSIONS_URL.format(cik=cik), f"submissions of {ticker}")
        recent = ((body or {}).get("filings") or {}).get("recent") if isinstance(body, dict) else {}
        recent = recent or {}
        cols = ("form", "filingDate", "accessionNumber", "items", "reportDate")
        found: list[tuple[date, str, date | None]] = []
        for form, filed, accession, items, report in zip(
            *(recent.get(c) or [] for c in cols), strict=False
        ):
            if form not in ("8-K", "8-K/A") or "2.02" not in str(items).split(","):
                continue
            day = date.fromisoformat(filed)
            if call_date - timedelta(days=RELEASE_DAYS) <= day <= call_date:
                found.append((day, accession, date.fromisoformat(report) if report else None))
        if not found:
            raise VendorError(
                f"{SOURCE} {ticker}: no earnings 8-K (item 2.02) filed from "
                f"{call_date - timedelta(days=RELEASE_DAYS)} to {call_date}"
            )
        filed, accession, report = max(found)
        url = ARCHIVE_URL.format(cik=cik, folder=accession.replace("-", ""), accession=accession)
        full = await self.http.text(url, f"8-K {accession} of {ticker}")
        if full is None:
            raise VendorError(f"{SOURCE} {ticker}: 8-K {accession} is not in the archive")
        for doc in re.findall(r"(?s)<DOCUMENT>(.*?)</DOCUMENT>", full):
            kind = re.search(r"<TYPE>([^\n<]+)", doc)
            if kind and kind.group(1).strip().upper() in ("EX-99.1", "EX-99"):
                name = re.search(r"<FILENAME>([^\n<]+)", doc)
                text = re.search(r"(?s)<TEXT>(.*?)</TEXT>", doc)
                return Release(
                    ticker=ticker,
                    cik=cik,
                    accession=accession,
                    filed=filed,
                    report_date=report,
                    document=name.group(1).strip() if name else "",
                    text=_html_text(text.group(1) if text else doc),
                )
        raise VendorError(f"{SOURCE} {ticker}: 8-K {accession} has no exhibit 99.1")


def _fact(ticker: str, concept: str, unit: str, row: Any) -> Fact:
    """One company-facts row, or a VendorError naming the ticker, form and field."""
    form = str(row.get("form", "?")) if isinstance(row, dict) else "?"
    where = f"{SOURCE} XBRL for {ticker}: {form} {concept}"
    if not isinstance(row, dict):
        raise VendorError(f"{where}: a value is not an object")
    val = row.get("val")
    if isinstance(val, bool) or not isinstance(val, int | float) or not math.isfinite(val):
        raise VendorError(f"{where} ending {row.get('end')}: value {val!r} is not a number")
    try:
        return Fact(
            concept=concept,
            start=date.fromisoformat(row["start"]) if row.get("start") else None,
            end=date.fromisoformat(row["end"]),
            value=float(val),
            form=form,
            accession=str(row.get("accn", "")),
            filed=date.fromisoformat(row["filed"]),
            unit=unit,
            fiscal=f"{row['fp']} {row['fy']}" if row.get("fp") and row.get("fy") else None,
        )
    except (KeyError, TypeError, ValueError):
        raise VendorError(f"{where}: a value without a valid end or filed date") from None


def _first_report(facts: list[Fact], end: date) -> Fact | None:
    """A value from the first filing that reported a period ending on `end` as its own: its
    fiscal period names the quarter ("Q2 2026"; "FY" is the fourth quarter). Later filings
    repeat the period as a comparative under their own fiscal period."""
    own = sorted(
        (f for f in facts if f.end == end and f.fiscal and (f.filed - end).days <= 120),
        key=lambda f: f.filed,
    )
    return own[0] if own else None


def _quarter_value(
    facts: list[Fact], concepts: tuple[str, ...], end: date, *, instant: bool, additive: bool
) -> float | None:
    """A line's value for the quarter ending `end`: the instant, the quarter's own duration,
    or a year-to-date value less the one ending a quarter earlier (cash flows in 10-Qs, the
    fourth quarter in a 10-K). The latest filing of a value wins (restatements)."""
    for concept in concepts:
        mine = sorted((f for f in facts if f.concept == concept), key=lambda f: f.filed)
        if instant:
            at = [f for f in mine if f.start is None and f.end == end]
            if at:
                return at[-1].value
            continue
        spans: dict[tuple[date, date], float] = {
            (f.start, f.end): f.value for f in mine if f.start is not None
        }
        for (start, stop), value in spans.items():
            if stop == end and (stop - start).days in QUARTER_DAYS:
                return value
        for (start, stop), value in spans.items():
            if stop != end or not additive:
                continue
            for (s2, e2), earlier in spans.items():
                if s2 == start and (end - e2).days in QUARTER_DAYS:
                    return value - earlier
    return None
