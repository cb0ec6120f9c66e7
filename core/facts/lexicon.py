"""The metrics the call facts know: the words a call uses for each, the units a level of it
can have (revenue is money; a margin is a percent), and how much an analyst leads with it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from core.facts.memo import memoized


@dataclass(frozen=True)
class Properties:
    """What is known about a metric, whatever words name it (one row a metric, `PROPERTIES`).

    - `better`: "more" (revenue), "less" (a cost ratio, debt), or "neither" (a tax rate);
    - `measure`: "flow" (over a period: revenue, cash flow), "balance" (at a date: cash, debt,
      backlog, customers; a year-end balance on a fourth-quarter call is the year's too) or
      "ratio" (a rate, a margin, a multiple, a growth rate);
    - `basis_class`: what a call's "adjusted unless noted" covers: "earnings" (earnings,
      margins, expenses, tax), "sales" (revenue-like: its growth may be organic), "cash" (cash
      flows: stay as named) or "other" (balances, volumes, counts);
    - `margin`: for a money metric, the margin that divides it by revenue ("ebitda_margin");
    - `kind`: "income" (an earnings measure an outlook may state adjusted), "cash" (a cash
      flow), or "other"."""

    better: Literal["more", "less", "neither"]
    measure: Literal["flow", "balance", "ratio"]
    basis_class: Literal["earnings", "sales", "cash", "other"]
    margin: str | None
    kind: Literal["income", "cash", "other"]


def _p(better: str, measure: str, basis_class: str, kind: str = "other",
       margin: str | None = None) -> Properties:  # fmt: skip
    return Properties(better, measure, basis_class, margin, kind)  # type: ignore[arg-type]


# One row a metric of the gold vocabulary (tests/fixtures/facts_gold/README.md; `other` aside).
PROPERTIES: dict[str, Properties] = {
    "revenue": _p("more", "flow", "sales"),
    "gross_profit": _p("more", "flow", "earnings", margin="gross_margin"),
    "gross_margin": _p("more", "ratio", "earnings", "income"),
    "operating_income": _p("more", "flow", "earnings", "income", margin="operating_margin"),
    "operating_margin": _p("more", "ratio", "earnings", "income"),
    "ebitda": _p("more", "flow", "earnings", "income", margin="ebitda_margin"),
    "ebitda_margin": _p("more", "ratio", "earnings", "income"),
    "ebit": _p("more", "flow", "earnings", "income"),
    "pretax_income": _p("more", "flow", "earnings", "income"),
    "net_income": _p("more", "flow", "earnings", "income"),
    "eps": _p("more", "flow", "earnings", "income"),
    "dividend": _p("more", "flow", "other"),
    "buyback": _p("neither", "flow", "other"),
    "operating_cash_flow": _p("more", "flow", "cash", "cash"),
    "free_cash_flow": _p("more", "flow", "cash", "cash"),
    "capex": _p("neither", "flow", "other"),
    "cash": _p("more", "balance", "other"),
    "liquidity": _p("more", "balance", "other"),
    "debt": _p("less", "balance", "other"),
    "leverage": _p("less", "balance", "other"),
    "expenses": _p("less", "flow", "earnings"),
    "tax_rate": _p("neither", "ratio", "earnings"),
    "same_store_sales": _p("more", "ratio", "sales"),
    "backlog": _p("more", "balance", "sales"),
    "orders": _p("more", "flow", "sales"),
    "book_to_bill": _p("more", "ratio", "other"),
    "net_interest_income": _p("more", "flow", "other"),
    "net_interest_margin": _p("more", "ratio", "other"),
    "noninterest_income": _p("more", "flow", "other"),
    "noninterest_expense": _p("less", "flow", "earnings"),
    "loans": _p("more", "balance", "other"),
    "deposits": _p("more", "balance", "other"),
    "charge_offs": _p("less", "flow", "other"),
    "nonperforming_assets": _p("less", "balance", "other"),
    "provision": _p("less", "flow", "other"),
    "book_value_per_share": _p("more", "balance", "other"),
    "return_on_equity": _p("more", "ratio", "earnings"),
    "return_on_tangible_equity": _p("more", "ratio", "earnings"),
    "return_on_assets": _p("more", "ratio", "earnings"),
    "efficiency_ratio": _p("less", "ratio", "earnings"),
    "aum": _p("more", "balance", "other"),
    "net_flows": _p("more", "flow", "other"),
    "combined_ratio": _p("less", "ratio", "other"),
    "production": _p("more", "flow", "other"),
    "customers": _p("more", "balance", "other"),
    "payments_volume": _p("more", "flow", "other"),
    "operating_ratio": _p("less", "ratio", "other"),
    "medical_care_ratio": _p("less", "ratio", "other"),
    "arr": _p("more", "balance", "other"),
    "premiums": _p("more", "flow", "other"),
    "catastrophe_losses": _p("less", "flow", "other"),
    "net_investment_income": _p("more", "flow", "other"),
    "net_retention": _p("more", "ratio", "other"),
    "ffo": _p("more", "flow", "other"),
    "noi": _p("more", "flow", "other"),
    "occupancy": _p("more", "ratio", "other"),
    "revpar": _p("more", "ratio", "other"),
}
BALANCES = frozenset(n for n, p in PROPERTIES.items() if p.measure == "balance")


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    words: str  # regex, matched case-insensitively on word boundaries
    level: str  # a level's unit: money, rate (a percent), per_share, number, volume, multiple
    weight: float  # how much an analyst leads with it
    segmentable: bool = True  # segments report it too (revenue yes, EPS no)

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.words)

    @property
    def properties(self) -> Properties:
        return PROPERTIES[self.name]

    @property
    def better(self) -> str:
        return self.properties.better

    @property
    def margin(self) -> str | None:
        return self.properties.margin


_CACHE: dict[str, re.Pattern[str]] = {}


def _compiled(words: str) -> re.Pattern[str]:
    if words not in _CACHE:
        _CACHE[words] = re.compile(rf"\b(?:{words})\b", re.IGNORECASE)
    return _CACHE[words]


# Order matters only for ties: the longest metric words at a place win.
METRICS: tuple[Metric, ...] = (
    Metric("eps", "EPS", r"(?:diluted |basic )?(?:earnings|eps|net income|income|net loss|loss|"
           r"earnings \(loss\)) per (?:diluted |basic )?(?:common )?share|e\.?p\.?s\.?|"
           r"per[- ]share earnings", "per_share", 3.0, False),
    Metric("book_value_per_share", "Tangible book value per share",
           r"tangible book value per (?:common )?share", "per_share", 2.0, False),
    Metric("book_value_per_share", "Book value per share",
           r"book value per (?:common )?share", "per_share", 2.0, False),
    Metric("dividend", "Dividend", r"(?:quarterly |cash |common |annual )?dividends?|"
           r"(?:(?:quarterly|annual(?:ized)?|lp|unitholder|common unit) )?(?<!for )"
           r"distributions?(?: per (?:common )?unit)?(?! yield)", "per_share",
           1.4, False),
    Metric("same_store_sales", "Same-store sales",
           r"(?:same[- ]store|comparable[- ]store|comparable|comp(?:arable)?[- ]store|comp|"
           r"comparable (?:restaurant|branch|club|unit|location|brand)) "
           r"(?:sales|revenues?)(?: growth)?|comps", "growth", 2.6),
    Metric("gross_margin", "Gross margin",
           r"(?:home(?:building)? sales )?gross (?:profit )?(?:margins?|rate)(?: rate)?", "rate",
           2.0),
    Metric("operating_margin", "Operating margin",
           r"operating (?:profit |income )?(?:margins?|rate)|ebit margins?|(?:segment )?operating "
           r"margin|segment (?:profit )?margins?",
           "rate", 2.1),
    Metric("ebitda_margin", "EBITDA margin", r"ebitda margins?", "rate", 2.0),
    Metric("net_interest_margin", "Net interest margin", r"net interest margin|nim", "rate", 2.2),
    Metric("tax_rate", "Tax rate", r"(?:effective |adjusted )?(?:income )?tax rate", "rate", 0.8,
           False),
    Metric("efficiency_ratio", "Efficiency ratio", r"efficiency ratio", "rate", 1.5),
    Metric("return_on_tangible_equity", "Return on tangible common equity",
           r"return on (?:average )?tangible (?:common )?(?:shareholders' )?equity|rotce",
           "rate", 1.9, False),
    Metric("return_on_equity", "Return on equity",
           r"return on (?:average )?(?:common )?(?:shareholders' )?equity|roe",
           "rate", 1.8, False),
    Metric("return_on_assets", "Return on assets", r"return on (?:average )?assets|roa", "rate",
           1.6),
    Metric("combined_ratio", "Combined ratio", r"combined ratio", "rate", 2.2),
    # industries' own ratios where lower is better: a railroad's, a health insurer's
    Metric("operating_ratio", "Operating ratio", r"operating ratio", "rate", 2.6),
    Metric("medical_care_ratio", "Medical care ratio",
           r"medical (?:care|loss|cost|benefits?) ratio|benefit expense ratio|mlr|mcr", "rate",
           2.5),
    Metric("gross_profit", "Gross profit", r"gross profit", "money", 1.6),
    Metric("ebitda", "EBITDA", r"ebitda", "money", 2.3),
    Metric("operating_income", "Operating income",
           r"operating (?:income|profit|earnings|loss)|income from operations|"
           r"segment (?:operating )?(?:income|profit)", "money", 2.2),
    Metric("pretax_income", "Pre-tax income",
           r"pre-?tax (?:income|earnings)|income before (?:income )?taxes", "money", 1.6),
    Metric("net_interest_income", "Net interest income", r"net interest income", "money", 2.0),
    Metric("noninterest_income", "Non-interest income", r"non-?interest income|fee income",
           "money", 1.5),
    Metric("noninterest_expense", "Non-interest expense", r"non-?interest expenses?", "money",
           1.3),
    Metric("net_income", "Net income",
           r"net (?:income|earnings|profit|loss)|(?:net )?(?:income|loss|earnings) from continuing "
           r"operations|earnings",
           "money", 2.5),
    Metric("free_cash_flow", "Free cash flow", r"free cash flows?", "money", 2.2, False),
    Metric("operating_cash_flow", "Operating cash flow",
           r"operating cash flows?|cash flows? from operati(?:ons|ng activities)|cash (?:provided|"
           r"generated) (?:by|from) operati(?:ons|ng activities)|cash from operati(?:ons|ng "
           r"activities)", "money", 2.0, False),
    Metric("capex", "Capital expenditures", r"capital expenditures?|capex|capital spending|"
           r"capital (?:investments?|budget|program)", "money", 1.2),
    Metric("arr", "Annual recurring revenue", r"annual(?:ized)? recurring revenue|arr",
           "money", 2.4),
    Metric("premiums", "Net premiums written",
           r"(?:net |gross )?(?:premiums?|premium) written|npw", "money", 2.2),
    Metric("catastrophe_losses", "Catastrophe losses", r"catastrophe losses|cat losses", "money",
           1.6),
    Metric("net_investment_income", "Net investment income", r"net investment income", "money",
           1.6),
    # a REIT's own measures: funds from operations per share, net operating income, occupancy
    Metric("ffo", "FFO per share",
           r"(?:(?:core|normalized|nareit) )?(?:ffo|funds from operations)(?: per "
           r"(?:diluted )?share)?", "per_share", 2.9, False),
    Metric("noi", "Net operating income",
           r"(?:(?:same[- ](?:store|property|center|asset)|cash|property) )?noi|(?:same[- ]"
           r"(?:store|property|center)|property) net operating income", "money", 2.4),
    # a hotel company's revenue per available room, stated as its growth
    Metric("revpar", "RevPAR", r"(?:(?:system[- ]wide|comparable|same[- ]store|global|worldwide) )?"
           r"revpar(?: growth)?", "growth", 2.7),
    Metric("occupancy", "Occupancy",
           r"(?:(?:portfolio|same[- ]store|average|ending|period[- ]end) )?occupancy(?: rate)?|"
           r"(?:percent|percentage) leased|leased rate", "rate", 2.2),
    Metric("net_retention", "Net revenue retention",
           r"net (?:revenue |dollar )?(?:retention|expansion) rate|net (?:revenue |dollar )?"
           r"retention", "rate", 1.8),
    Metric("buyback", "Share repurchases",
           r"share repurchases?|stock repurchases?|repurchases?|buybacks?", "money", 1.3, False),
    Metric("backlog", "Backlog", r"(?:total |funded )?backlog", "money", 1.8),
    Metric("orders", "Orders", r"orders|bookings|order intake|written (?:sales|orders)", "money",
           1.7),
    Metric("book_to_bill", "Book-to-bill", r"book[- ]to[- ]bill(?: ratio)?", "number", 1.5),
    Metric("loans", "Loans", r"(?:total |average |gross )?loans(?: and leases)?", "money", 1.8),
    Metric("deposits", "Deposits", r"(?:total |average )?deposits", "money", 1.8),
    Metric("charge_offs", "Net charge-offs", r"(?:net )?charge-?offs", "money", 1.5),
    Metric("nonperforming_assets", "Nonperforming assets",
           r"non-?performing (?:assets|loans)", "money", 1.4),
    # (a bare "provision" is a bank's credit provision only where the sentence speaks of credit:
    # core.facts.binding's guard.provision_not_credit)
    Metric("provision", "Provision for credit losses",
           r"provision for (?:loan|credit) losses|(?:credit loss )?provision(?: expense)?",
           "money", 1.6),
    Metric("net_flows", "Net inflows", r"(?:long-term |total )?net (?:inflows|new money)",
           "money", 2.1),
    Metric("aum", "Assets under management", r"assets under (?:management|administration)|aum",
           "money", 2.0),
    Metric("debt", "Debt", r"(?:net |total |long-term )?debt", "money", 1.1, False),
    Metric("liquidity", "Liquidity",
           r"(?:total |available |ample )?liquidity(?: position)?|borrowing capacity|(?:undrawn|"
           r"unused|available) (?:revolver|credit facility|capacity)", "money", 1.1, False),
    Metric("cash", "Cash", r"cash and (?:cash )?equivalents|cash on hand|(?:net )?cash position",
           "money", 1.1, False),
    Metric("expenses", "R&D expenses",
           r"(?:r&d|research and development) (?:spend(?:ing)?|expenses?|investments?)", "money",
           1.1, False),
    Metric("expenses", "Operating expenses",
           r"(?:total )?operating expenses?|opex|sg&a(?: expenses?)?|selling, general and "
           r"administrative expenses", "money", 1.2),
    Metric("leverage", "Leverage", r"(?:net )?leverage(?: ratio)?|(?:net )?debt[- ]to[- ]ebitda",
           "multiple", 1.1, False),
    Metric("production", "Production", r"(?:total |net |average )?(?:production|output)",
           "volume", 2.0),
    # industries' own volumes and counts (the gold's `production` and `customers`): a railroad's
    # carloads, a payments network's payments volume and transactions, a health insurer's
    # members, an automaker's deliveries, a platform's users
    Metric("production", "Carloads", r"(?:total )?carloads|carload volumes?", "number", 2.0),
    # a manufacturer's or a waste hauler's volumes and shipments (not "sales volumes" of a
    # utility's electricity: core.facts.attribution keeps those out of revenue already)
    Metric("production", "Volumes", r"(?:total |organic |sales |shipment )?(?:volumes|shipments)",
           "volume", 1.6),
    Metric("payments_volume", "Payments volume",
           r"(?:total )?payments? volumes?|total payment volume|tpv|gross (?:merchandise|dollar|"
           r"payment) volume|gmv", "money", 2.4),
    Metric("production", "Processed transactions", r"processed transactions", "number", 1.8),
    Metric("customers", "Membership",
           r"(?:medical |health plan |total )?membership|medical members", "number", 2.2),
    Metric("production", "Deliveries", r"(?:total |vehicle )?deliveries", "number", 2.3),
    Metric("customers", "Subscribers",
           r"(?:total |paid |global |streaming |digital )?(?:subscribers|subscriber base)",
           "number", 2.2),
    Metric("customers", "Active users",
           r"(?:daily|monthly) active (?:users|people|uniques)|daus?|maus?", "number", 2.4),
    Metric("production", "Originations", r"(?:mortgage |loan )?originations|origination volumes?",
           "money", 1.6),
    # "organic growth"; "Organic was 9.5%" (the call's shorthand for it)
    Metric("revenue", "Revenue", r"organic growth|organic(?= (?:was|were|is|came in at)\b)",
           "growth", 2.8),
    Metric("revenue", "Revenue",
           r"(?:net |total |consolidated )?(?:revenues?|sales)|top[- ]line|net sales|"
           r"home(?:building)? sales revenues?", "money",
           3.0),
)  # fmt: skip

METRIC_BY_NAME = {m.name: m for m in METRICS}


@dataclass(frozen=True)
class MetricMatch:
    metric: Metric
    start: int
    end: int


@memoized
def metric_matches(text: str) -> list[MetricMatch]:
    """Every metric phrase in `text`, the longest where they overlap, in order."""
    return list(_metric_matches(text))


@lru_cache(maxsize=16384)  # a call asks about the same sentences and clauses many times
def _metric_matches(text: str) -> tuple[MetricMatch, ...]:
    found: list[MetricMatch] = []
    for metric in METRICS:
        for m in metric.pattern.finditer(text):
            found.append(MetricMatch(metric, m.start(), m.end()))
    found.sort(key=lambda x: (x.start, -(x.end - x.start)))
    out: list[MetricMatch] = []
    for x in found:
        if out and x.start < out[-1].end:
            if x.end - x.start > out[-1].end - out[-1].start and x.start == out[-1].start:
                out[-1] = x
            continue
        out.append(x)
    return tuple(out)
