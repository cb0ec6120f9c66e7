"""Optional structured inputs: quarterly `financials` and daily `prices`, validated.

Field names follow the Alpha Vantage examples in the seed papers (`totalRevenue`,
`fiscalDateEnding`, `"1. open"`...). Amounts may be numbers or numeric strings; `"None"`, `""` and
null mean "not reported". Anything else is refused with the field's name, before a run starts.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    WithJsonSchema,
    model_validator,
)


class InputError(ValueError):
    """Financials or prices that cannot be used; the message names the field."""


def _amount(value: Any) -> float | None:
    """A finite number, from a number or its text; None for "not reported". NaN and the
    infinities (JSON's NaN/Infinity, the text "nan" or "inf") are refused: no statement or
    price is one, and they would poison every ratio computed from it."""
    if value is None or (isinstance(value, str) and value.strip() in ("", "None", "null", "-")):
        return None
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.replace(",", "").strip())
        except ValueError:
            raise ValueError(f"expected a number, got {value[:40]!r}") from None
    else:
        raise ValueError(f"expected a number, got {type(value).__name__}")
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number, got {number}")
    return number


_NUMBER_TEXT = {"type": "string", "description": "a number as text ('1,234.5'), or 'None'"}


# The schema says what _amount takes: numbers, numbers as text (Alpha Vantage), or nothing.
def _iso_date(value: Any) -> Any:
    """Dates come as text ('2026-06-30'); a bare number is refused, not read as a Unix time."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise ValueError(f"expected a date as YYYY-MM-DD, got the number {value!r}")
    return value


IsoDate = Annotated[date, BeforeValidator(_iso_date)]

Amount = Annotated[
    float | None,
    BeforeValidator(_amount),
    WithJsonSchema({"anyOf": [{"type": "number"}, _NUMBER_TEXT, {"type": "null"}]}),
]
Price = Annotated[
    float,
    BeforeValidator(_amount),
    Field(gt=0),
    WithJsonSchema({"anyOf": [{"type": "number", "exclusiveMinimum": 0}, _NUMBER_TEXT]}),
]

# The statement lines the pipelines use (income statement, balance sheet, cash flow).
STATEMENT_FIELDS: tuple[str, ...] = (
    "totalRevenue", "costOfRevenue", "grossProfit", "operatingExpenses",
    "sellingGeneralAndAdministrative", "researchAndDevelopment", "operatingIncome",
    "netInterestIncome", "interestIncome", "interestExpense", "depreciationAndAmortization",
    "incomeBeforeTax", "incomeTaxExpense", "netIncomeFromContinuingOperations", "ebit", "ebitda",
    "netIncome", "totalAssets", "totalLiabilities", "totalShareholderEquity",
    "cashAndCashEquivalentsAtCarryingValue", "operatingCashflow", "capitalExpenditures",
)  # fmt: skip


class QuarterStatement(BaseModel):
    """One fiscal quarter's statements. Unknown Alpha Vantage lines are kept as given."""

    model_config = ConfigDict(extra="allow", frozen=True)

    fiscalDateEnding: IsoDate
    reportedCurrency: str = "USD"
    totalRevenue: Amount = None
    costOfRevenue: Amount = None
    grossProfit: Amount = None
    operatingExpenses: Amount = None
    sellingGeneralAndAdministrative: Amount = None
    researchAndDevelopment: Amount = None
    operatingIncome: Amount = None
    netInterestIncome: Amount = None
    interestIncome: Amount = None
    interestExpense: Amount = None
    depreciationAndAmortization: Amount = None
    incomeBeforeTax: Amount = None
    incomeTaxExpense: Amount = None
    netIncomeFromContinuingOperations: Amount = None
    ebit: Amount = None
    ebitda: Amount = None
    netIncome: Amount = None
    totalAssets: Amount = None
    totalLiabilities: Amount = None
    totalShareholderEquity: Amount = None
    cashAndCashEquivalentsAtCarryingValue: Amount = None
    operatingCashflow: Amount = None
    capitalExpenditures: Amount = None

    @model_validator(mode="after")
    def _finite_extra_lines(self) -> QuarterStatement:
        """Lines kept as given are numbers too: NaN or an infinity is refused on its name."""
        for name, raw in (self.model_extra or {}).items():
            if isinstance(raw, float) and not math.isfinite(raw):
                raise ValueError(f"{name}: expected a finite number, got {raw}")
            if isinstance(raw, str):
                try:
                    number = float(raw.replace(",", "").strip())
                except ValueError:
                    continue  # text, kept as given (line() reads it as not reported)
                if not math.isfinite(number):
                    raise ValueError(f"{name}: expected a finite number, got {raw[:40]!r}")
        return self

    def line(self, name: str) -> float | None:
        """A statement line by its Alpha Vantage name, declared here or kept as given."""
        raw = getattr(self, name, None)
        if raw is None and self.model_extra:
            raw = self.model_extra.get(name)
        try:
            return _amount(raw)
        except ValueError:
            return None

    def reported(self) -> dict[str, float]:
        """The statement lines that have a value."""
        values = {f: getattr(self, f) for f in STATEMENT_FIELDS}
        return {k: v for k, v in values.items() if v is not None}


class EpsConsensus(BaseModel):
    """The data vendor's reported vs estimated EPS for the call's quarter (Alpha Vantage's
    EARNINGS endpoint): the consensus was published before the call, the reported figure is
    what the call announced. Marked as vendor data wherever it is shown."""

    model_config = ConfigDict(frozen=True)

    fiscalDateEnding: IsoDate
    reportedDate: IsoDate
    reportedEPS: Amount = None
    estimatedEPS: Amount = None
    surprise: Amount = None
    surprisePercentage: Amount = None
    source: str = "Alpha Vantage EARNINGS (data vendor)"

    def text(self) -> str:
        if self.reportedEPS is None or self.estimatedEPS is None:
            return (f"EPS consensus for the quarter ending {self.fiscalDateEnding}: not given "
                    f"by {self.source}")  # fmt: skip
        diff = self.reportedEPS - self.estimatedEPS
        word = "beat" if diff > 0 else "missed" if diff < 0 else "met"
        pct = f" ({self.surprisePercentage:+.1f}%)" if self.surprisePercentage is not None else ""
        return (
            f"Reported EPS {self.reportedEPS:.2f} vs consensus estimate {self.estimatedEPS:.2f}: "
            f"{word} by {abs(diff):.2f}{pct}, quarter ending {self.fiscalDateEnding}, reported "
            f"{self.reportedDate} (source: {self.source})"
        )


class FiledValue(BaseModel):
    """A value the company filed (a statement line, or a row of its earnings release), for the
    filing check of the call's key figures (core/filing.py); never shown to a model as a
    figure to use."""

    model_config = ConfigDict(frozen=True)

    metric: str
    period: str = Field(description="the fiscal quarter, e.g. Q2 2026")
    value: float
    unit: str = "money"
    basis: str = "gaap"
    source: str


class Financials(BaseModel):
    """Current quarter, previous quarter, same quarter last year (the seeds' layout), plus any
    further quarters (`quarters`, e.g. four for the conversation pipeline's Analyst)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    ticker: str | None = Field(default=None, alias="Ticker")
    most_recent_earnings: QuarterStatement
    previous_earnings: QuarterStatement | None = None
    same_quarter_last_year_earnings: QuarterStatement | None = None
    quarters: list[QuarterStatement] = Field(default_factory=list, max_length=12)
    ecc: str | None = Field(default=None, alias="ECC")
    quarter: str | None = Field(default=None, alias="Quarter")
    year: str | None = Field(default=None, alias="Year")
    consensus: EpsConsensus | None = None
    filed: list[FiledValue] = Field(
        default_factory=list,
        description="the earnings release's values for the call's quarter (8-K exhibit 99.1, "
        "filed on or before the call), for the filing check only",
    )
    cut: str | None = Field(
        default=None,
        description="what was cut as dated on or after the call (set by `before_the_call`)",
    )

    @model_validator(mode="after")
    def _dates_in_order(self) -> Financials:
        latest = self.most_recent_earnings.fiscalDateEnding
        for name in ("previous_earnings", "same_quarter_last_year_earnings"):
            q: QuarterStatement | None = getattr(self, name)
            if q is not None and q.fiscalDateEnding >= latest:
                raise ValueError(
                    f"{name} ends {q.fiscalDateEnding}, not before most_recent_earnings ({latest})"
                )
        return self

    def ordered(self) -> list[QuarterStatement]:
        """Every distinct quarter given, newest first."""
        named = [self.most_recent_earnings, self.previous_earnings,
                 self.same_quarter_last_year_earnings]  # fmt: skip
        by_date = {q.fiscalDateEnding: q for q in [*self.quarters, *named] if q is not None}
        return [by_date[d] for d in sorted(by_date, reverse=True)]

    def figures_text(self) -> str:
        """Every reported amount as plain numbers, a grounding source for the report's figures."""
        lines = [
            f"{q.fiscalDateEnding} {name} {value:.0f}"
            for q in self.ordered()
            for name, value in q.reported().items()
        ]
        if self.consensus is not None:
            lines.append(self.consensus.text())
        return "\n".join(lines)


class PriceBar(BaseModel):
    model_config = ConfigDict(frozen=True)

    date: IsoDate
    open: Price
    high: Price
    low: Price
    close: Price
    volume: Annotated[
        float,
        BeforeValidator(_amount),
        Field(ge=0),
        WithJsonSchema({"anyOf": [{"type": "number", "minimum": 0}, _NUMBER_TEXT]}),
    ] = 0.0

    @model_validator(mode="after")
    def _consistent(self) -> PriceBar:
        if self.low > self.high:
            raise ValueError(f"{self.date}: low {self.low} is above high {self.high}")
        return self


class PriceSeries(BaseModel):
    """Daily bars of one symbol, oldest first, one per date."""

    model_config = ConfigDict(frozen=True)

    symbol: str = Field(min_length=1, max_length=20)
    bars: list[PriceBar] = Field(min_length=2)

    @model_validator(mode="before")
    @classmethod
    def _alpha_vantage(cls, data: Any) -> Any:
        """Accept Alpha Vantage's TIME_SERIES_DAILY JSON as it comes."""
        if isinstance(data, dict) and "Time Series (Daily)" in data:
            meta = data.get("Meta Data", {})
            series = data["Time Series (Daily)"]
            if not isinstance(series, dict):
                raise ValueError("'Time Series (Daily)' must be an object of date -> bar")
            bars = [
                {"date": day, **{k.split(". ", 1)[-1]: v for k, v in bar.items()}}
                for day, bar in series.items()
            ]
            return {"symbol": meta.get("2. Symbol", "UNKNOWN"), "bars": bars}
        return data

    @model_validator(mode="after")
    def _sorted_unique(self) -> PriceSeries:
        bars = sorted(self.bars, key=lambda b: b.date)
        dates = [b.date for b in bars]
        if len(set(dates)) != len(dates):
            dup = next(d for d in dates if dates.count(d) > 1)
            raise ValueError(f"{self.symbol}: two bars for {dup}")
        object.__setattr__(self, "bars", bars)
        return self


class Prices(BaseModel):
    """The company's daily prices and, optionally, a benchmark's (e.g. SPY) before the call."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    company: PriceSeries
    benchmark: PriceSeries | None = None
    as_of: date | None = Field(
        default=None,
        description="the call date: bars dated on or after it are dropped here, before any "
        "pipeline can see them (no look-ahead)",
    )
    cut: str | None = Field(
        default=None, description="what was dropped as dated on or after the call (set here)"
    )

    @model_validator(mode="after")
    def _before_the_call(self) -> Prices:
        if self.as_of is None:
            return self
        cutoff = self.as_of
        dropped = [b.date for s in (self.company, self.benchmark) if s is not None
                   for b in s.bars if b.date >= cutoff]  # fmt: skip
        if dropped and self.cut is None:
            object.__setattr__(
                self,
                "cut",
                f"{len(dropped)} price bar(s) dated on or after the call date {cutoff} (through "
                f"{max(dropped)}) were cut: no data from after the call is used",
            )
            self.__pydantic_fields_set__.add("cut")  # kept by serializers of set fields only
        company = [b for b in self.company.bars if b.date < cutoff]
        if len(company) < 2:
            raise ValueError(f"company prices need at least 2 bars before {cutoff}")
        object.__setattr__(self, "company", self.company.model_copy(update={"bars": company}))
        if self.benchmark is not None:
            bench = [b for b in self.benchmark.bars if b.date < cutoff]
            object.__setattr__(
                self,
                "benchmark",
                self.benchmark.model_copy(update={"bars": bench}) if len(bench) >= 2 else None,
            )
        return self


def before_the_call(
    financials: Financials | None, prices: Prices | None, call_date: date
) -> tuple[Financials | None, Prices | None]:
    """What a run may see of a call on `call_date`, whatever the source (fetched, a user's
    body, a file, an eval's folder): every price bar, statement and consensus dated on or after
    the call is cut (a statement dated by its period's end), each cut said in its `cut` note (the
    report lists it). Statements whose latest quarter ends on or after the call are refused
    (InputError): they are not the statements the call was made with."""
    if prices is not None and (prices.as_of is None or prices.as_of > call_date):
        prices = Prices(company=prices.company, benchmark=prices.benchmark, as_of=call_date)
    if financials is None:
        return None, prices
    latest = financials.most_recent_earnings.fiscalDateEnding
    if latest >= call_date:
        raise InputError(
            f"the statements' latest quarter ends {latest}, on or after the call date {call_date}: "
            "nothing dated after the call may be used (send the statements the call was made with)"
        )
    said: list[str] = []
    update: dict[str, Any] = {}
    kept = [q for q in financials.quarters if q.fiscalDateEnding < call_date]
    if len(kept) != len(financials.quarters):
        update["quarters"] = kept
        said.append(f"{len(financials.quarters) - len(kept)} quarter(s)")
    consensus = financials.consensus
    if consensus is not None and consensus.fiscalDateEnding >= call_date:
        update["consensus"] = None
        said.append(f"the consensus for {consensus.fiscalDateEnding}")
    if said:
        update["cut"] = (
            f"statements dated on or after the call date {call_date} were cut: {', '.join(said)}"
        )
        financials = financials.model_copy(update=update)
    return financials, prices


# -- files (the CLI's --financials / --prices) -----------------------------------------------


def _rows(text: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames:
        raise InputError("the CSV file has no header row")
    return [{k.strip(): (v or "").strip() for k, v in row.items() if k} for row in reader]


def _file_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text") from None


def _said_plainly(exc: ValidationError) -> InputError:
    """A file's validation errors as one InputError: each field's path and what is wrong, in
    our words (no library phrasing or links), at most five."""
    from core.options import in_our_words

    problems = [
        f"{'.'.join(str(p) for p in e['loc']) or 'the file'}: {in_our_words(e)}"
        for e in exc.errors()
    ]
    more = f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
    return InputError("; ".join(problems[:5]) + more)


def read_financials(path: Path) -> Financials:
    """A statements file (`--financials`, an eval folder's `ID.financials.*`): JSON, or CSV by
    its extension."""
    try:
        return financials_from_text(_file_text(path), csv_format=path.suffix.lower() == ".csv")
    except ValidationError as exc:
        raise _said_plainly(exc) from None


def read_prices(path: Path, *, ticker: str | None = None, benchmark: str = "SPY") -> Prices:
    """A prices file (`--prices`, an eval folder's `ID.prices.*`): JSON, or CSV by its
    extension."""
    try:
        return prices_from_text(_file_text(path), csv_format=path.suffix.lower() == ".csv",
                                ticker=ticker, benchmark=benchmark)  # fmt: skip
    except ValidationError as exc:
        raise _said_plainly(exc) from None


def financials_from_text(text: str, *, csv_format: bool) -> Financials:
    """JSON (the seeds' layout) or CSV (one row per quarter, columns = statement fields)."""
    if not csv_format:
        return Financials.model_validate(_json(text))
    quarters = [QuarterStatement.model_validate(r) for r in _rows(text)]
    if not quarters:
        raise InputError("the financials CSV has no rows")
    quarters.sort(key=lambda q: q.fiscalDateEnding, reverse=True)
    return financials_of(quarters)


def financials_of(
    quarters: list[QuarterStatement],
    *,
    ticker: str | None = None,
    consensus: EpsConsensus | None = None,
) -> Financials:
    """Statements (newest first, at least one) as `Financials`: the latest quarter, the one
    before it and the same quarter a year earlier (330-400 days before), for every source."""
    latest = quarters[0]
    year_ago = next((q for q in quarters[1:] if timedelta(days=330)
                     <= latest.fiscalDateEnding - q.fiscalDateEnding
                     <= timedelta(days=400)), None)  # fmt: skip
    fields: dict[str, Any] = {
        "most_recent_earnings": latest,
        "previous_earnings": quarters[1] if len(quarters) > 1 else None,
        "same_quarter_last_year_earnings": year_ago,
        "quarters": quarters,
        "consensus": consensus,
    }
    if ticker is not None:
        fields["Ticker"] = ticker
    return Financials.model_validate(fields)


def prices_from_text(
    text: str, *, csv_format: bool, ticker: str | None = None, benchmark: str = "SPY"
) -> Prices:
    """JSON (`{"company": ..., "benchmark": ..., "as_of": ...}`, each series either
    `{"symbol", "bars"}` or Alpha Vantage's daily JSON) or CSV with columns
    date,open,high,low,close,volume and an optional symbol column (the `benchmark` symbol's rows
    are the benchmark; the others, or `ticker`'s, the company)."""
    if not csv_format:
        return Prices.model_validate(_json(text))
    rows = _rows(text)
    by_symbol: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_symbol.setdefault(row.get("symbol") or ticker or "COMPANY", []).append(row)
    bench_rows = by_symbol.pop(benchmark, None)
    if ticker and ticker in by_symbol:
        company_symbol = ticker
    elif len(by_symbol) == 1:
        company_symbol = next(iter(by_symbol))
    else:
        raise InputError(
            f"the prices CSV has symbols {sorted(by_symbol)}: pass --ticker to pick the company"
        )

    def series(symbol: str, rs: list[dict[str, str]]) -> dict[str, Any]:
        return {"symbol": symbol, "bars": [{k: v for k, v in r.items() if k != "symbol"}
                                           for r in rs]}  # fmt: skip

    return Prices.model_validate({
        "company": series(company_symbol, by_symbol[company_symbol]),
        "benchmark": series(benchmark, bench_rows) if bench_rows else None,
    })  # fmt: skip


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None


COMPARISON_LINES: tuple[tuple[str, str], ...] = (
    ("totalRevenue", "Revenue"),
    ("grossProfit", "Gross profit"),
    ("operatingIncome", "Operating income"),
    ("ebitda", "EBITDA"),
    ("netIncome", "Net income"),
    ("operatingCashflow", "Operating cash flow"),
    ("totalAssets", "Total assets"),
    ("totalLiabilities", "Total liabilities"),
    ("totalShareholderEquity", "Shareholder equity"),
)


def _prior(financials: Financials, days: tuple[int, int]) -> QuarterStatement | None:
    latest = financials.most_recent_earnings.fiscalDateEnding
    for q in financials.ordered()[1:]:
        if days[0] <= (latest - q.fiscalDateEnding).days <= days[1]:
            return q
    return None


@dataclass(frozen=True)
class Change:
    """A quarter-over-quarter or year-over-year change, computed here rather than by the model;
    `formula` names its operands so a reader can redo it ("Revenue QoQ = 612 / 565 - 1")."""

    field: str
    label: str
    basis: Literal["QoQ", "YoY"]
    now: float
    before: float
    now_quarter: date
    before_quarter: date

    @property
    def percent(self) -> float:
        return (self.now - self.before) / abs(self.before) * 100

    def text(self) -> str:
        return f"{self.percent:+.1f}%"

    @property
    def formula(self) -> str:
        return (
            f"{self.label} {self.basis} = {self.now:,.0f} / {self.before:,.0f} - 1 "
            f"({self.now_quarter} vs {self.before_quarter})"
        )


def _comparands(
    financials: Financials,
) -> tuple[QuarterStatement | None, QuarterStatement | None]:
    prev = financials.previous_earnings or _prior(financials, (60, 120))
    year = financials.same_quarter_last_year_earnings or _prior(financials, (330, 400))
    return prev, year


def changes(financials: Financials) -> list[Change]:
    """Every QoQ and YoY change of the comparison lines that both quarters report."""
    now = financials.most_recent_earnings
    out: list[Change] = []
    bases: tuple[Literal["QoQ", "YoY"], ...] = ("QoQ", "YoY")
    for basis, other in zip(bases, _comparands(financials), strict=True):
        if other is None:
            continue
        for field, name in COMPARISON_LINES:
            a, b = getattr(now, field), getattr(other, field)
            if a is None or b is None or b == 0:
                continue
            out.append(Change(field, name, basis, a, b, now.fiscalDateEnding,
                              other.fiscalDateEnding))  # fmt: skip
    return out


def comparison_table(financials: Financials) -> str:
    """Quarter-over-quarter and year-over-year changes, computed here rather than by the model:
    current quarter vs the previous quarter and the same quarter a year earlier."""
    now = financials.most_recent_earnings
    prev, year = _comparands(financials)
    computed = {(c.field, c.basis): c.text() for c in changes(financials)}

    def cell(q: QuarterStatement | None, field: str) -> str:
        value = getattr(q, field) if q is not None else None
        return "n/a" if value is None else f"{value:,.0f}"

    def label(q: QuarterStatement | None) -> str:
        return str(q.fiscalDateEnding) if q is not None else "not supplied"

    rows = [
        f"| Line | {now.fiscalDateEnding} | {label(prev)} | QoQ | {label(year)} | YoY |",
        "|---|---|---|---|---|---|",
    ]
    for field, name in COMPARISON_LINES:
        current = getattr(now, field)
        if current is None:
            continue
        rows.append(
            f"| {name} | {current:,.0f} | {cell(prev, field)} "
            f"| {computed.get((field, 'QoQ'), 'n/a')} "
            f"| {cell(year, field)} | {computed.get((field, 'YoY'), 'n/a')} |"
        )
    if financials.consensus is not None:
        rows += ["", financials.consensus.text()]
    return "\n".join(rows)


def raw_statements(financials: Financials) -> str:
    """The three quarters the seeds carry (the current one, the previous one and the same
    quarter a year earlier), every statement line as given and nothing computed: the Jetsons
    advanced writer's data in the paper, which leaves the comparisons to the model. No
    consensus (no paper gives it)."""
    prev, year = _comparands(financials)
    labels = ("current quarter", "previous quarter", "same quarter last year")
    quarters = [(label, q) for label, q in zip(labels, (financials.most_recent_earnings, prev,
                year), strict=True) if q is not None]  # fmt: skip
    lines: list[str] = []
    for _, q in quarters:
        for name in [*type(q).model_fields, *(q.model_extra or {})]:
            if name not in lines and name not in ("fiscalDateEnding", "reportedCurrency"):
                lines.append(name)
    head = " | ".join(f"{label} ({q.fiscalDateEnding})" for label, q in quarters)
    rows = [f"| Line | {head} |", "|---" * (len(quarters) + 1) + "|"]
    for name in lines:
        values = [q.line(name) for _, q in quarters]
        if any(v is not None for v in values):
            cells = " | ".join("n/a" if v is None else f"{v:,.0f}" for v in values)
            rows.append(f"| {name} | {cells} |")
    return "\n".join(rows)
