"""Attribution by clause: for each figure of a sentence, the metric, segment, basis, period and
role that the words bound to it give, or nothing when those words do not settle it.

"Revenue was $108 million, an increase from $81 million in the second quarter of 2020": $108
million is the current quarter's revenue (result), $81 million is the comparison (Q2 2020).
"Licensed brands revenue was up 122%" is a segment's growth (change), never the level of revenue.
A figure is bound to a metric only through a short run of connecting words ("was", "of",
"increased 9% to", period words); anything else between them (another metric, a verb that
starts a new thought, a clause mark) and the figure is left out. Precision before recall."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.facts.call import CallIdentity
from core.facts.lexicon import METRIC_BY_NAME, Metric, MetricMatch, metric_matches
from core.facts.outlook import FORWARD, PAST
from core.facts.periods import Mention, Period, mentions, resolve
from core.facts.sentences import figures_in
from core.grounding import Figure

# words that may stand between a metric and its figure
_CONNECT = frozenset(
    [
        "was",
        "were",
        "is",
        "are",
        "be",
        "been",
        "of",
        "totaled",
        "totalled",
        "totaling",
        "totalling",
        "total",
        "came",
        "in",
        "at",
        "ended",
        "reached",
        "amounted",
        "stood",
        "to",
        "by",
        "increased",
        "decreased",
        "grew",
        "rose",
        "fell",
        "declined",
        "improved",
        "expanded",
        "contracted",
        "up",
        "down",
        "approximately",
        "about",
        "roughly",
        "nearly",
        "almost",
        "around",
        "just",
        "over",
        "more",
        "than",
        "under",
        "less",
        "a",
        "an",
        "the",
        "record",
        "for",
        "this",
        "that",
        "quarter",
        "year",
        "during",
        "period",
        "on",
        "basis",
        "gaap",
        "non-gaap",
        "adjusted",
        "reported",
        "organic",
        "organically",
        "constant",
        "currency",
        "year-over-year",
        "year-on-year",
        "sequentially",
        "compared",
        "with",
        "versus",
        "vs",
        "vs.",
        "from",
        "increase",
        "decrease",
        "decline",
        "growth",
        "improvement",
        "also",
        "again",
        "has",
        "have",
        "had",
        "strong",
        "solid",
        "all-time",
        "high",
        "higher",
        "lower",
        "slightly",
        "modestly",
        "equated",
        "equaled",
        "equal",
        "amounted",
        "significantly",
        "increasing",
        "decreasing",
        "growing",
        "declining",
        "improving",
        "finished",
        "landed",
        "diluted",
        "share",
        "per",
        "quarterly",
        "fiscal",
        "full",
        "new",
        "another",
        "nearly",
        "some",
        "of",
        "came",
        "coming",
        "hit",
        "climbed",
        "jumped",
        "dropped",
        "slipped",
        "saw",
        "reach",
        "approached",
        "exceeded",
        "surpassed",
        "which",
        "or",
        "achieved",
        "delivered",
        "generated",
        "reported",
        "posted",
        "recorded",
        "produced",
        "its",
        "our",
        "we",
        "than",
        "expected",
        "anticipated",
        "planned",
        "level",
        "more",
    ]
)
# and, in forward-looking sentences, the words of an outlook
_FORWARD_CONNECT = _CONNECT | frozenset(
    [
        "expect",
        "expects",
        "expected",
        "expecting",
        "anticipate",
        "anticipates",
        "anticipated",
        "anticipating",
        "now",
        "continue",
        "continues",
        "see",
        "sees",
        "guide",
        "guides",
        "guiding",
        "guidance",
        "outlook",
        "project",
        "projects",
        "projected",
        "forecast",
        "forecasts",
        "be",
        "will",
        "should",
        "would",
        "remain",
        "remains",
        "range",
        "between",
        "target",
        "targets",
        "targeting",
        "plan",
        "plans",
        "planning",
        "estimate",
        "estimates",
        "assume",
        "assumes",
        "assuming",
        "likely",
        "in-line",
        "within",
        "low",
        "high",
        "end",
        "midpoint",
        "toward",
        "towards",
        "there",
        "roughly",
        "grow",
        "growth",
        "decline",
        "increase",
        "rate",
        "raising",
        "raise",
        "raised",
        "lowering",
        "lower",
        "lowered",
        "reaffirming",
        "reaffirm",
        "reaffirmed",
        "reiterating",
        "reiterate",
        "maintaining",
        "maintain",
        "updated",
        "updating",
        "narrowing",
        "narrowed",
        "initial",
        "initiating",
        "providing",
        "provide",
        "expectations",
        "being",
        "look",
        "looking",
        "estimated",
        "forecasted",
        "targeted",
        "guided",
        "planned",
        "currently",
        "it",
        "this",
        "go",
    ]
)
_CHANGE_UP = (
    r"up|increased?|increasing|grew|growing|growth|rose|rising|improved?|improving|"
    r"improvement|expanded|expanding|expansion|higher|gain(?:ed)?|climbed|jumped|better"
)
_CHANGE_DOWN = (
    r"down|decreased?|decreasing|declined?|declining|fell|falling|lower|contracted|"
    r"contraction|reduction|reduced|drop(?:ped)?|slipped|worse|compressed|compression"
)
_CHANGE_BEFORE = re.compile(
    rf"\b(?P<dir>{_CHANGE_UP}|{_CHANGE_DOWN})(?:\s+(?:of|by))?\s+(?:approximately |about |nearly "
    r"|roughly |almost |more than |over |just over |just under |some |a strong |a solid |an? )?$",
    re.IGNORECASE,
)
_CHANGE_AFTER = re.compile(
    rf"^\s*(?:year[- ](?:over|on)[- ]year |sequential |quarter[- ]over[- ]quarter )?"
    rf"(?P<dir>increase|growth|{_CHANGE_UP}|{_CHANGE_DOWN}|decline|decrease|improvement|rise|"
    r"gain)\b",
    re.IGNORECASE,
)
_DOWN = re.compile(rf"^(?:{_CHANGE_DOWN}|decline|decrease)$", re.IGNORECASE)
_COMPARE_BEFORE = re.compile(
    r"\b(?:from|compared (?:to|with)|versus|vs\.?|against|(?<!more )(?<!less )(?<!greater )than|"
    r"relative to|last year's|"
    r"prior[- ]year's|year[- ]ago|a year ago of)\s+(?:approximately |about |the |a |an |roughly "
    r"|nearly |record |just |only )?$",
    re.IGNORECASE,
)
_TO_BEFORE = re.compile(
    r"\bto\s+(?:approximately |about |a record |record |nearly |roughly |almost |over |"
    r"more than |just over )?$",
    re.IGNORECASE,
)
_PAST_VERB = re.compile(
    r"\b(?:was|were|grew|rose|fell|declined|decreased|increased|delivered|generated|reported|"
    r"posted|achieved|ended|had|came|finished|closed|totaled|totalled|improved|expanded|"
    r"contracted|saw|made|returned|paid|repurchased|earned|produced|recorded)\b",
    re.IGNORECASE,
)
_LOSS = re.compile(r"\bloss(?:es)?\b", re.IGNORECASE)
_BPS = re.compile(r"basis points?|bps|points?\b", re.IGNORECASE)
_PERCENT_POINTS = re.compile(r"^\s*(?:percentage )?points?\b", re.IGNORECASE)
_PER_SHARE_AFTER = re.compile(r"^\s*(?:per|a) (?:diluted |basic )?(?:common )?share\b", re.I)
_ADJUSTED = re.compile(
    r"\b(?:adjusted|non-gaap|core(?= (?:eps|earnings|operating|net|diluted|ebitda|income|"
    r"margin|gross|free cash|tax rate))|normalized|underlying|pro forma|"
    r"excluding (?:special |one-time |"
    r"nonrecurring |notable )?items|ex-items|before (?:special|notable) items)\b",
    re.IGNORECASE,
)
_GAAP = re.compile(r"(?<!non-)(?<!non )\b(?:gaap|as reported|on an? reported basis)\b", re.I)
_BASIS_OPENING = re.compile(
    r"^(?:On|Excluding [\w\s-]{3,40}?,?\s+on)\s+an?\s+(?P<b>adjusted|non-gaap|normalized|core|gaap|"
    r"reported|organic|constant[- ]currency|comparable)\s+basis\s*,",
    re.IGNORECASE,
)
_ORGANIC = re.compile(r"\borganic(?:ally)?\b", re.IGNORECASE)
_CC = re.compile(r"\b(?:constant[- ]currency|fx[- ]neutral|currency[- ]neutral)\b", re.I)
# words that qualify a metric without naming a part of the company
_GENERIC = frozenset(
    [
        "total",
        "net",
        "consolidated",
        "overall",
        "company",
        "company's",
        "companywide",
        "company-wide",
        "quarterly",
        "record",
        "reported",
        "adjusted",
        "non-gaap",
        "gaap",
        "diluted",
        "basic",
        "core",
        "organic",
        "underlying",
        "strong",
        "solid",
        "higher",
        "lower",
        "first-quarter",
        "second-quarter",
        "third-quarter",
        "fourth-quarter",
        "full-year",
        "fiscal",
        "year",
        "quarter",
        "annual",
        "segment",
        "our",
        "the",
        "its",
        "their",
        "this",
        "that",
        "these",
        "those",
        "a",
        "an",
        "and",
        "record-setting",
        "all-time",
        "robust",
        "healthy",
        "solid",
        "improved",
        "increased",
        "good",
        "great",
        "excellent",
        "very",
        "combined",
        "comparable",
        "q1",
        "q2",
        "q3",
        "q4",
        "fy",
        "first",
        "second",
        "third",
        "fourth",
        "full",
        "operating",
        "cash",
        "total,",
        "resulting",
        "enterprise",
        "enterprise-wide",
        "reported,",
        "pro",
        "forma",
        "year-to-date",
        "ytd",
        "cumulative",
        "average",
        "sequential",
        "year-over-year",
        "double-digit",
        "double",
        "digit",
        "strong,",
        "overall,",
        "same",
        "as",
        "in",
    ]
)
_GEO = re.compile(
    r"\b(?:(?:in|across|from|outside(?: of)?) (?:the )?(?:U\.?S\.?|United States|Europe|EMEA|"
    r"China|Asia(?: Pacific)?|APAC|Latin America|LatAm|Canada|Japan|North America|the Americas|"
    r"emerging markets|international markets)|internationally|domestically)\b"
)
_SEGMENT_OPENER = re.compile(
    r"^(?:(?:Now,?\s+)?(?:turning|moving|switching|shifting|let me turn|let's turn|I'll turn|"
    r"looking|going)\s+(?:now\s+)?(?:to|at)\s+|In\s+|At\s+|For\s+|Within\s+)(?:the\s+|our\s+)?"
    r"(?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?[A-Z&][\w&'’.-]*){0,3})"
    r"(?:\s+(?:segment|business|division|group|unit|brands?))?\s*(?:[,:]|\.?$)",
)
_SEGMENT_NAMED = re.compile(
    r"\b(?:[Oo]ur|[Tt]he)\s+(?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+|and\s+)?[A-Z&][\w&'’.-]*){0,4})\s+"
    r"(?:segment|business|division|group|unit)\b"
)
_SEGMENT_SUBJECT = re.compile(
    r"(?:^(?:(?:During|In|For|At) [^,]{3,50},\s+)?|,\s+|\band\s+)"
    r"(?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?[A-Z&][\w&'’.-]*){0,3})(?:'s|’s)?,?\s+"
    r"(?:also\s+|again\s+)?(?:enjoyed|had|saw|grew|"
    r"rose|fell|won|booked|generated|"
    r"reported|delivered|saw|posted|grew|achieved|produced|continued|contributed|recorded|"
    r"earned|increased|decreased|experienced|benefited|ended)\b"
)
_SEGMENT_AT = re.compile(
    r"\b(?:at|within|for) (?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?[A-Z&][\w&'’.-]*){0,3})\b"
)
_NOT_SEGMENT = re.compile(
    r"^(?:Q[1-4]|FY|H[12]|Fiscal|First|Second|Third|Fourth|January|February|March|April|May|"
    r"June|July|August|September|October|November|December|Total|Overall|Summary|Addition|"
    r"Closing|Conclusion|Short|Terms|Particular|Fact|Turn|Aggregate|Consolidated|Looking|"
    r"Light|Line|General|Other|Both|Each|All|Our|Its|This|That|These|Those|Some|Most|Many|"
    r"The|GAAP|Non-GAAP|Adjusted|So|Now|Again|Also|Finally|Lastly|Next|Then|Regarding|"
    r"Respect|Order|Terms|Light|Spite|Contrast|Comparison|Response|Connection|It|We|They|He|"
    r"She|There|Here|Everyone|Management|Today|Yesterday|Last|Looking|Importantly|Additionally|"
    r"Overall|Sales|Revenue|Revenues|Earnings|Margins?|Cash|Net|Gross|Operating|Free|Company|"
    r"Q&A|Slide|Slides|Page|Chart|Appendix|COVID|Covid|Board|Analysts?|Investors?|Wall|"
    r"America|Americans|Yes|No|Thanks|Thank|Good|Great|Well|OK|Okay)\b"
)
_COMPANY_CUE = re.compile(
    r"\b(?:total company|consolidated(?:ly)?|company[- ]wide|for the (?:total )?company|"
    r"enterprise[- ]wide|in total|on a total company basis|overall company|(?:balance sheet|"
    r"cash flows?|capital allocation|liquidity|guidance|outlook)\b)",
    re.IGNORECASE,
)


# bounds that keep attribution linear in the call's length: each sentence's work is bounded
MAX_SENTENCE = 1500  # characters
MAX_FIGURES = 24  # figures in one sentence


@dataclass(frozen=True)
class Attributed:
    """A figure with the metric, segment, basis, period and role its words give it."""

    fig: Figure  # offsets within the sentence
    metric: Metric
    role: str  # "result" | "comparison" | "change"
    value: float  # signed, normalised (percent points for percents and bps)
    unit: str  # "money" | "percent" | "bps" | "number"
    basis: str | None
    segment: str | None
    period: Period | None
    anchor: int | None = None  # for a change or comparison: the start of its figure
    high: float | None = None  # a range's upper bound (value is the lower)
    forward: bool = False  # an outlook's figure (its cue stands before it or in its clause)
    qualitative: bool = False  # a worded range ("low teens")


@dataclass
class Context:
    """What the sentences before say about the ones after: the segment being discussed."""

    segment: str | None = None
    segment_age: int = 0
    period: Period | None = None  # the period the last sentences stated
    period_age: int = 0


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'’&.-]+", text.lower())


def _unit(fig: Figure, sentence: str) -> str:
    after = sentence[fig.start + len(fig.text) : fig.start + len(fig.text) + 25]
    if _BPS.search(fig.text) and re.search(r"basis|bps", fig.text, re.I):
        return "bps"
    if fig.kind == "plain" and _PERCENT_POINTS.match(after):
        return "percent"
    if fig.kind == "percent":
        return "percent"
    if fig.kind == "money" or re.search(r"(?:million|billion|thousand|trillion)\b", fig.text, re.I):
        return "money"
    return "number"


def clause_bounds(sentence: str, start: int, end: int) -> tuple[int, int]:
    """The clause a figure sits in: between clause marks (semicolon, dash, colon, parenthesis,
    ", and", ", while", ", but", ", which", ", driven by" ...)."""
    marks = re.compile(
        r";|\s[—–-]\s|:\s|\(|\)|,\s+(?:and|while|but|whereas|which|driven|reflecting|primarily|"
        r"partially|partly|offset|due|as|including|excluding|with|led|helped|thanks|where)\b|"
        r"\.\s|\band\s+(?=(?:our|the|we|its)\b)"
    )
    a, b = 0, len(sentence)
    for m in marks.finditer(sentence):
        if m.end() <= start:
            a = m.end()
        elif m.start() >= end and b == len(sentence):
            b = m.start()
    return a, b


_SEGMENT_AFTER = re.compile(
    r"^\s*(?:for|in|from|at|of)\s+(?:our|the)\s+(?P<seg>[\w&'’.-]+(?:\s+[\w&'’.-]+){0,3}?)\s+"
    r"(?:segment|business|division|unit|group)\b",
    re.IGNORECASE,
)


def _gap_ok(gap: str, forward: bool = False) -> bool:
    """Only connecting words (and period words) between a metric and its figure."""
    stripped = _SEGMENT_AFTER.sub(" ", gap, count=1)
    stripped = re.sub(r"\b(?:attributable|available) to (?:common )?(?:(?:share|stock)holders|"
                      r"(?:[A-Z][\w&.'’-]*\s*){1,4})", " ", stripped)  # fmt: skip
    for m in reversed(mentions(gap)):
        stripped = stripped[: m.start] + " " + stripped[m.end :]
    stripped = re.sub(r"\bon an? [\w-]+(?: [\w-]+)? basis\b", " ", stripped, flags=re.I)
    if re.search(r"\d", stripped) or re.search(r"[;:(),]", stripped):
        return False  # another figure, or a list ("11% domestic sales growth, 14.9% for ...")
    words = _words(stripped.replace(",", " "))
    allowed = _FORWARD_CONNECT if forward else _CONNECT
    return len(words) <= (16 if forward else 12) and all(w in allowed for w in words)


# lowercase words that name a part of a company: a channel, a geography, a product line
_PART_WORDS = frozenset(
    [
        "domestic",
        "international",
        "online",
        "digital",
        "e-commerce",
        "ecommerce",
        "wholesale",
        "retail",
        "direct",
        "service",
        "services",
        "product",
        "products",
        "software",
        "hardware",
        "subscription",
        "subscriptions",
        "license",
        "licensed",
        "licensing",
        "brand",
        "brands",
        "consumer",
        "commercial",
        "industrial",
        "residential",
        "mortgage",
        "consumer",
        "government",
        "defense",
        "aerospace",
        "marine",
        "medical",
        "surgical",
        "diagnostics",
        "pharma",
        "specialty",
        "generic",
        "store",
        "in-store",
        "stores",
        "branded",
        "private-label",
        "club",
        "north",
        "south",
        "east",
        "west",
        "european",
        "asian",
        "us",
        "u.s.",
        "uk",
        "canadian",
        "chinese",
        "global-brands",
        "segment's",
        "division's",
        "emerging",
        "markets",
        "developed",
    ]
)
_STOP_NP = frozenset(
    [
        "the",
        "our",
        "its",
        "their",
        "a",
        "an",
        "of",
        "in",
        "for",
        "and",
        "while",
        "with",
        "was",
        "were",
        "to",
        "from",
        "at",
        "by",
        "on",
        "that",
        "which",
        "this",
        "these",
        "we",
        "as",
        "versus",
        "or",
        "than",
        "both",
        "each",
        "is",
        "are",
        "be",
        "been",
        "has",
        "have",
        "had",
        "do",
        "did",
    ]
)


# verbs whose object is the metric a figure then measures ("we expect revenue of $X")
_SUBJECT_VERBS = frozenset(
    [
        "expect",
        "expects",
        "anticipate",
        "anticipates",
        "see",
        "sees",
        "project",
        "projects",
        "forecast",
        "forecasts",
        "target",
        "targets",
        "guide",
        "estimate",
        "estimates",
        "deliver",
        "delivered",
        "delivers",
        "generate",
        "generated",
        "generates",
        "report",
        "reported",
        "reports",
        "post",
        "posted",
        "achieve",
        "achieved",
        "produce",
        "produced",
        "had",
        "have",
        "has",
        "saw",
        "record",
        "recorded",
        "grew",
        "grow",
        "increased",
        "increase",
        "improved",
        "improve",
        "expanded",
        "expand",
        "now",
        "continue",
        "continues",
        "still",
        "also",
        "again",
        "generating",
        "delivering",
        "producing",
        "achieving",
        "reporting",
        "posting",
        "recording",
        "driving",
    ]
)


# verbs (and prepositions) after which "$X of <metric>" states the metric's level
_OBJECT_VERBS = frozenset(
    [
        "delivered",
        "generated",
        "reported",
        "posted",
        "recorded",
        "had",
        "achieved",
        "produced",
        "earned",
        "was",
        "were",
        "of",
        "with",
        "totaling",
        "totaled",
        "saw",
        "returned",
        "paid",
        "is",
        "are",
        "be",
        "generating",
        "delivering",
        "producing",
        "reporting",
        "posting",
        "achieving",
        "recording",
        "earning",
        "expect",
        "expects",
        "anticipate",
        "see",
        "deliver",
        "generate",
        "produce",
        "achieve",
        "earn",
        "post",
        "record",
        "spend",
        "spent",
        "invest",
        "invested",
        "return",
        "returned",
        "deploy",
        "deployed",
    ]
)


def _np_segment(
    sentence: str, at: int, company_words: frozenset[str], metric: str = ""
) -> str | None | bool:
    """The words before a metric in its noun phrase that name a part of the company
    ("Journeys revenue", "O&P Americas EBITDA", "online sales"); None for the whole company;
    False when the phrase has words that make it another measure or a verb ("pre-provision
    net revenue", "demand drove revenue"): then the figure is not attributed."""
    head = sentence[max(0, at - 60) : at]
    tokens = re.findall(r"[\w'’&./-]+|[,;:()]", head)
    picked: list[str] = []
    for tok in reversed(tokens):
        low = tok.lower().strip("'’")
        if tok in ",;:()" or low in _STOP_NP or (re.search(r"\d", tok) and not mentions(tok)):
            break
        picked.append(tok)
        if len(picked) >= 6:
            break
    picked.reverse()
    if picked and picked[0][:1].isupper() and picked[0].lower() in _STOP_NP | {"so", "and", "but"}:
        picked = picked[1:]
    kept: list[str] = []
    for t in picked:
        low = t.lower().rstrip(".").removesuffix("'s").removesuffix("’s")
        if low == "core" and metric in ("deposits", "loans"):
            return False  # core deposits are a kind of deposits, not adjusted ones
        if (
            low in _GENERIC
            or low in company_words
            or mentions(t)
            or re.fullmatch(
                r"q[1-4]|\d+|'?\d{2}|(?:19|20)\d{2}|first|second|third|fourth|half|quarter|year|"
                r"fiscal|full|annual|quarterly|sequential|the|so|and",
                low,
            )
        ):
            continue
        if t[:1].isupper() or low in _PART_WORDS or "&" in t:
            kept.append(t)
            continue
        if low in _SUBJECT_VERBS:
            kept = []  # "we expect revenue ...": the phrase starts after the verb
            continue
        return False  # a word that is neither a part's name nor a plain qualifier
    if not kept:
        return None
    return re.sub(r"(?:'s|’s)$", "", " ".join(kept).strip(" ,"))


_REPORTED_ADJ = re.compile(
    r"(?:^|\b(?:our|the|a|its|of|with|and|on)\s+|,\s*)reported\s+(?=(?:[\w-]+\s+){0,2}(?:revenues?|"
    r"sales|eps|earnings|net|operating|gross|ebitda|margins?|growth|diluted)\b)",
    re.IGNORECASE,
)


def _basis(text: str, metric: Metric, role: str, call: CallIdentity) -> str | None:
    adjusted = [m.start() for m in _ADJUSTED.finditer(text)]
    gaap = [m.start() for m in _GAAP.finditer(text)] + [
        m.start() for m in _REPORTED_ADJ.finditer(text)]  # fmt: skip
    if adjusted or gaap:
        return "adjusted" if max(adjusted, default=-1) > max(gaap, default=-1) else "gaap"
    sales_like = metric.name in ("revenue", "same_store_sales", "orders", "backlog")
    if role == "change" and sales_like and _CC.search(text):
        return "constant_currency"
    if role == "change" and sales_like and _ORGANIC.search(text):
        return "organic"
    if role == "change" and metric.name == "revenue" and call.organic_revenue_by_default:
        return "organic"
    if call.adjusted_by_default and metric.level in ("money", "per_share", "rate") and metric.name \
            not in ("revenue", "loans", "deposits", "cash", "debt", "capex",
                    "dividend"):  # fmt: skip
        return "adjusted"
    return None


_VOLUME = re.compile(
    r"^\s*(?:million |billion |thousand )?(?:bcfe?|mmcfe?|mcfe?|mmbtu|bbls?|barrels|boe|mboe|"
    r"mmboe|tons|tonnes|metric tons|units|ounces|oz|megawatts|mw|gw|gigawatts|pounds|lbs|"
    r"gallons|cubic feet)\b",
    re.IGNORECASE,
)


def _fits(metric: Metric, unit: str, role: str, fig: Figure, after: str = "") -> bool:
    """A level of revenue is money, of a margin a percent; a change may be a percent of either
    (or points / basis points of a rate)."""
    if role == "change":
        if unit == "bps":
            return metric.level == "rate"
        if unit == "money":
            return metric.level in ("money", "per_share")
        return unit == "percent"
    level = metric.level
    if level == "money":
        return unit == "money" and abs(fig.value) >= 1000
    if level == "per_share":
        return unit == "money" and abs(fig.value) < 1000
    if level == "rate":
        return unit == "percent"
    if level == "volume":
        return unit == "number" and bool(_VOLUME.match(after))
    if level == "multiple":
        return unit == "number" and bool(re.match(r"^\s*(?:times|x)\b", after, re.I))
    return unit == "number"


def _period(
    sentence: str,
    own: Sequence[Mention],
    call: CallIdentity,
    forward: bool,
) -> Period | None | bool:
    """The figure's period from the period words bound to it; False when they disagree."""
    resolved = {resolve(m, call.period, forward=forward) for m in own if not m.is_base}
    resolved.discard(None)
    if len(resolved) > 1:
        return False
    if resolved:
        return resolved.pop()
    return None


def attribute(
    sentence: str,
    call: CallIdentity,
    context: Context,
    *,
    forward: bool = False,
) -> list[Attributed]:
    """The figures of one sentence that its words attribute, in order; unattributable ones are
    left out. Updates `context` (the segment under discussion) for the next sentence."""
    company_words = frozenset(w.lower().rstrip("'’s") for w in (call.company or "").split())
    opener = (_SEGMENT_OPENER.match(sentence) or _SEGMENT_NAMED.search(sentence)
              or _SEGMENT_SUBJECT.search(sentence))  # fmt: skip
    opener_seg = None
    if opener is not None and not _NOT_SEGMENT.match(opener.group("seg")):
        seg = opener.group("seg").strip()
        words = {w.lower().removesuffix("'s").removesuffix("’s") for w in seg.split()}
        if not words <= company_words and not mentions(seg):
            opener_seg = seg
    if _COMPANY_CUE.search(sentence):
        context.segment = None
    if opener_seg is None and not re.search(r"\d", sentence):
        at = _SEGMENT_AT.search(sentence)
        if at is not None and not _NOT_SEGMENT.match(at.group("seg")):
            words = {
                w.lower().removesuffix("'s").removesuffix("’s") for w in at.group("seg").split()
            }
            if not words <= company_words:
                context.segment, context.segment_age = at.group("seg"), 0
    context.segment_age += 1
    if context.segment_age > 30:
        context.segment = None  # three sentences without naming it: no longer under discussion
    if opener_seg is not None:
        context.segment, context.segment_age = opener_seg, 0
    if len(sentence) > MAX_SENTENCE:
        return []  # no spoken sentence is that long: a table or a paste, not attributable
    figs, highs, worded = _units(sentence, forward)
    if len(figs) > MAX_FIGURES:
        return []
    period_words = mentions(sentence)
    metrics = metric_matches(sentence)
    geo = _GEO.search(sentence)
    out: list[Attributed] = []
    last: Attributed | None = None
    prev: Attributed | None = None
    cued = bool(FORWARD.search(sentence))
    for i, fig in enumerate(figs):
        end = fig.start + len(fig.text)
        ca, cb = clause_bounds(sentence, fig.start, end)
        fw = forward and (
            not cued
            or bool(FORWARD.search(sentence[: fig.start]))
            or (bool(FORWARD.search(sentence[ca:cb])) and not PAST.search(sentence[ca:cb]))
        )
        got = _bind(sentence, fig, i, figs, metrics, period_words, (ca, cb), last, prev, call,
                    company_words, opener_seg, context, fw, geo)  # fmt: skip
        if got is not None and fw:
            got = replace(got, forward=True)
        nxt = figs[i + 1] if i + 1 < len(figs) else None
        if (
            got is not None
            and got.anchor is None
            and nxt is not None
            and nxt.kind == fig.kind
            and re.fullmatch(r"\s*(?:,|and|, and)\s*", sentence[end : nxt.start])
        ):
            got = None  # "$10 million and $12 million": which is which is not said
        if (
            i
            and got is not None
            and (prev is None or prev.fig is not figs[i - 1])
            and re.fullmatch(
                r"\s*,?\s*or\s+", sentence[figs[i - 1].start + len(figs[i - 1].text) : fig.start]
            )
        ):
            got = None  # "$67 million or $0.81 per share": whatever the first was, so is this
        prev = got
        if got is not None:
            if fig.start in highs:
                got = replace(got, high=_signed(highs[fig.start], got.value), qualitative=fig.start
                              in worded)  # fmt: skip
            out.append(got)
            if got.role != "comparison":
                last = got
    _remember_period(sentence, period_words, call, context, forward)
    return out


def _context_life(context: Context, call: CallIdentity) -> int:
    """How many sentences a stated period carries: a Q4 call's full-year paragraph runs on
    (six sentences); any other, two."""
    p, c = context.period, call.period
    if p is not None and c is not None and p.kind == "FY" and p.year == c.year and c.n == 4:
        return 6
    return 2


def _remember_period(
    sentence: str, found: Sequence[Mention], call: CallIdentity, context: Context, forward: bool
) -> None:
    """The period a results sentence speaks of, for the next ones (see `_context_life`).
    An outlook's period, or a year used as a name ("our 2021 plan"), sets nothing."""
    if forward:
        context.period_age += 1
        if context.period_age > _context_life(context, call):
            context.period = None
        return
    own = {resolve(m, call.period) for m in found if not m.is_base
           and not _COMPARE_BEFORE.search(sentence[max(0, m.start - 30) : m.start])
           and not (m.period is not None and m.period.kind == "FY" and re.fullmatch(
               r"(?:19|20)\d{2}", m.text) and not re.search(
               r"(?:\b(?:in|for|during|of|throughout)\s+(?:fiscal\s+)?|^\s*)$", sentence[: m.start],
               re.I))}  # fmt: skip
    own.discard(None)
    if len(own) == 1:
        context.period, context.period_age = own.pop(), 0
    elif len(own) > 1:
        context.period, context.period_age = None, 0
    else:
        context.period_age += 1
        if context.period_age > _context_life(context, call):
            context.period = None


def _bind(
    sentence: str,
    fig: Figure,
    i: int,
    figs: Sequence[Figure],
    metrics: Sequence[MetricMatch],
    period_words: Sequence[Mention],
    clause: tuple[int, int],
    last: Attributed | None,
    prev: Attributed | None,
    call: CallIdentity,
    company_words: frozenset[str],
    opener_seg: str | None,
    context: Context,
    forward: bool,
    geo: re.Match[str] | None,
) -> Attributed | None:
    ca, cb = clause
    end = fig.start + len(fig.text)
    unit = _unit(fig, sentence)
    if re.match(r"^\s*(?:which|who|that|where)\b", sentence[ca:]) and ca > 0:
        return None  # ", which was able to deliver ...": its subject is in another clause
    right = sentence[end:cb]
    prev_fig_end = max((f.start + len(f.text) for f in figs[:i]), default=0)
    metric_match: MetricMatch | None = None
    anchor: Attributed | None = None
    # 1. per share: "$5.25 per share of earnings", "$0.79 per diluted share"
    if _PER_SHARE_AFTER.match(right):
        near = sentence[max(ca, fig.start - 60) : fig.start]
        if re.search(r"dividend", near, re.I):
            metric_match = MetricMatch(METRIC_BY_NAME["dividend"], fig.start, fig.start)
        elif re.search(r"book value", near, re.I):
            metric_match = MetricMatch(METRIC_BY_NAME["book_value_per_share"], fig.start, fig.start)
        elif re.search(r"earn|income|eps|loss|profit", sentence[ca:cb], re.I):
            metric_match = MetricMatch(METRIC_BY_NAME["eps"], fig.start, fig.start)
        else:
            return None
    # 2. the metric before the figure, through connecting words only
    if metric_match is None:
        before = [m for m in metrics if ca <= m.start and m.end <= fig.start
                  and m.end >= prev_fig_end]  # fmt: skip
        if before and _gap_ok(sentence[before[-1].end : fig.start], forward):
            metric_match = before[-1]
    # 3. the metric after: "$2.7 billion of EBITDA", "a 9% increase in revenue"
    if metric_match is None:
        after = re.match(
            r"^\s*(?:(?:year[- ]over[- ]year |sequential )?(?:increase|decrease|decline|growth|"
            r"improvement|rise|drop|reduction|expansion|gain)\s+)?(?:of|in|on)\s+"
            r"(?:our |the |total |"
            r"net |adjusted |gaap |non-gaap |consolidated |core |diluted |organic |reported )*",
            right,
            re.IGNORECASE,
        )
        if after is not None:
            at = end + after.end()
            nxt = next((m for m in metrics if m.start == at), None)
            if nxt is None:  # one modifier word: "$539 million in Journeys revenue"
                nxt = next((m for m in metrics if at < m.start <= at + 30 and m.end <= cb
                            and re.fullmatch(r"\s*[\w&'’.-]+(?:\s+[\w&'’.-]+)?\s*",
                                             sentence[at : m.start])), None)  # fmt: skip
            verb = re.search(r"(\w+)\s+(?:(?:approximately|about|nearly|roughly|almost|over|"
                             r"more than|a record|record|just over|a|an)\s+)*$",
                             sentence[ca : fig.start])  # fmt: skip
            tail = sentence[nxt.end : cb] if nxt is not None else ""
            if nxt is not None and (verb is None or verb.group(1).lower() in _OBJECT_VERBS) and (
                re.match(r"^\s*(?:$|,|\.|in the (?:quarter|period|year)|for\b|during|this|"
                         r"compared|versus|vs|up|down|an? |which|year|over|from)", tail, re.I)
            ):  # fmt: skip
                metric_match = nxt
    # 3b. "6% revenue growth", "13% earnings growth", "a 43% comparable sales increase"
    growth_after = False
    if metric_match is None and unit == "percent":
        lead = re.match(
            r"^\s*(?:(?:organic|adjusted|reported|total|net|core|diluted|"
            r"constant[- ]currency|year[- ]over[- ]year)\s+)*",
            right,
            re.I,
        )
        at = end + (lead.end() if lead else 0)
        nxt = next((m for m in metrics if m.start == at), None)
        if nxt is not None and re.match(
            rf"^\s*(?P<dir>growth|increase|decline|decrease|{_CHANGE_UP}|{_CHANGE_DOWN})\b",
            sentence[nxt.end : cb],
            re.I,
        ):
            metric_match, growth_after = nxt, True
    # 4. an appositive change of the figure before: ", a year-over-year improvement of $1.8
    #    billion", ", up 9%", "or 7.3%"
    to_level = False
    if metric_match is None and last is not None:
        between = sentence[last.fig.start + len(last.fig.text) : fig.start]
        if last.role == "change" and re.fullmatch(
            r"\s*(?:(?:year[- ](?:over|on)[- ]year|sequentially|organically|in the quarter)\s+)?"
            r"to\s+(?:a record |record |approximately |about |nearly |roughly )?",
            between,
            re.IGNORECASE,
        ):
            anchor, to_level = last, True
            metric_match = MetricMatch(last.metric, last.fig.start, last.fig.start)
        elif (
            re.fullmatch(
                r"\s*,?\s*(?:(?:an?|the)\s+)?"
                r"(?:(?:year[- ](?:over|on)[- ]year|sequential|quarterly|"
                rf"organic|strong|solid)\s+)*(?:(?:{_CHANGE_UP}|{_CHANGE_DOWN}|increase|decrease|"
                r"decline|improvement|gain|rise)(?:\s+(?:of|by))?|or(?:\s+an?\s+(?:increase|decrease|"
                r"decline)\s+of)?)\s+(?:approximately |about |nearly |roughly |almost |more than "
                r"|over )?",
                between,
                re.IGNORECASE,
            )
            or re.fullmatch(
                r"\s*,?\s*(?:(?:up|down|increasing|decreasing|compared|as compared)\s+)?"
                r"(?:from|compared (?:to|with)|versus|vs\.?)\s+(?:approximately |about |"
                r"the |a )?",
                between,
                re.IGNORECASE,
            )
            or (re.fullmatch(r"\s*,?\s*(?:up|down)\s+from\s+", between, re.I))
        ):
            anchor = last
            metric_match = MetricMatch(last.metric, last.fig.start, last.fig.start)
    if metric_match is None:
        return None
    metric = metric_match.metric
    gap = sentence[metric_match.end : fig.start] if anchor is None else sentence[
        anchor.fig.start + len(anchor.fig.text) : fig.start]  # fmt: skip
    # role
    role = "result"
    up_down: str | None = None
    cmp_before = _COMPARE_BEFORE.search(sentence[max(ca, fig.start - 40) : fig.start])
    chg_before = _CHANGE_BEFORE.search(sentence[max(ca, fig.start - 40) : fig.start])
    chg_after = _CHANGE_AFTER.match(right)
    if chg_after is not None and re.match(
        r"\s*(?:by\s+)?(?:approximately |about |nearly |almost |"
        r"over |more than )?[$€£]?\d",
        right[chg_after.end() :],
    ):
        chg_after = None  # "$14.5 billion up 5.8%": the change is the next figure's
    level_to = bool(re.search(r"\bto\s+(?:\w+\s+)?$", gap)) and not re.search(
        r"\b(?:compared|relative)\s+to\s+(?:\w+\s+)?$", gap)  # fmt: skip
    if cmp_before is not None and not level_to:
        role = "comparison"
    elif (
        level_to
        and _TO_BEFORE.search(sentence[max(ca, fig.start - 25) : fig.start])
        and (unit != "bps")
    ):
        role = "result"
    elif chg_before is not None:
        role, up_down = "change", chg_before.group("dir")
    elif re.search(
        r"\bby\s+(?:approximately |about |nearly |roughly |almost |over |more than )?$",
        sentence[max(ca, fig.start - 30) : fig.start],
        re.I,
    ) and (verb := re.search(rf"\b({_CHANGE_UP}|{_CHANGE_DOWN})\b", gap, re.I)):
        role, up_down = "change", verb.group(1)
    elif chg_after is not None:
        role, up_down = "change", chg_after.group("dir")
    elif unit == "bps":
        return None  # basis points with no direction: not a level, not a known change
    growth_gap = re.search(r"\b(?P<dir>growth|grow|grew|increase|decline|decrease|down)\b",
                           gap if anchor is None else "", re.I)  # fmt: skip
    if (
        (growth_after or growth_gap)
        and role != "comparison"
        and unit in ("percent", "bps")
        and (metric.level in ("money", "per_share") or unit == "bps")
    ):
        word = growth_gap.group("dir") if growth_gap else "growth"
        if growth_after:
            word = re.match(r"^\s*(\w+)", sentence[metric_match.end : cb]).group(1)  # type: ignore[union-attr]
        if not (role == "change" and up_down is not None and _DOWN.match(up_down.split()[0])):
            role, up_down = "change", word
    # "compared to net income of $14.6 million": a cue before the metric, after the last figure
    lead_in = sentence[max(ca, prev_fig_end) : min(metric_match.start, fig.start)]
    if anchor is None and re.search(r"\b(?:compared (?:to|with)|versus|vs\.?|against|relative "
                                    r"to)\b", lead_in, re.I):  # fmt: skip
        role = "comparison"
    # "the year-over-year increase in core deposits of $243 million": a change
    noun = re.search(
        r"\b(?P<dir>increase|decrease|decline|growth|improvement|rise|drop|reduction|expansion|"
        r"contraction|gain)s?\s+in\s+(?:[\w&'’-]+\s+){0,3}$",
        sentence[max(ca, metric_match.start - 50) : metric_match.start],
        re.IGNORECASE,
    )
    if anchor is None and noun is not None and role == "result" and metric_match.end <= fig.start:
        role, up_down = "change", noun.group("dir")
    # "$14.6 million, or $0.51 per diluted share": the same role and period as the figure before
    chained = prev is not None and bool(
        re.fullmatch(
            r"\s*,?\s*(?:or|and)\s+", sentence[prev.fig.start + len(prev.fig.text) : fig.start]
        )
    )
    if chained and prev is not None and prev.role == "comparison" and anchor is None:
        role = "comparison"
    if metric.level == "growth" and unit in ("percent", "bps") and role != "comparison":
        role = "change"
        if up_down is None:
            down = re.search(rf"\b(?:{_CHANGE_DOWN}|decline|decrease|negative)\b", gap, re.I)
            up_down = down.group(0) if down else "growth"
    if to_level:
        role, up_down = "result", None
    elif anchor is not None and role == "result":
        return None
    # an effect on a metric ("a currency headwind on revenue of $80 million") is not its level
    if re.search(
        r"\b(?:headwinds?|tailwinds?|impacts?|effects?|benefits?|contributions?|drag|"
        r"contributed|impacted|reduced|hurt|helped|added|dilution|accretion|accretive)\b",
        sentence[max(ca, metric_match.start - 45) : metric_match.start],
        re.I,
    ):
        return None
    if unit == "percent" and metric.level in ("money", "per_share") and role != "change":
        return None  # "40% of revenue" is a share; a percent of a money metric must be a change
    if not _fits(metric, unit, role, fig, sentence[end:]):
        return None
    # sign
    value = fig.value * (100 if unit == "bps" else 1)
    if role == "change":
        if up_down is not None and _DOWN.match(up_down.lower().split()[0]):
            value = -abs(value)
        elif up_down is None:
            return None
    elif _LOSS.search(sentence[metric_match.start : metric_match.end]) or re.search(
        r"\b(?:loss|negative)\s+(?:of\s+)?(?:approximately |about )?$",
        sentence[max(ca, fig.start - 30) : fig.start],
        re.I,
    ):
        value = -abs(value)
    # segment
    segment: str | None
    if anchor is not None:
        segment = anchor.segment
    else:
        found_seg = _np_segment(sentence, metric_match.start, company_words, metric.name) if (
            metric_match.end > metric_match.start) else None  # fmt: skip
        if found_seg is False:
            return None
        segment = found_seg if isinstance(found_seg, str) else None
        seg_after = _SEGMENT_AFTER.match(sentence, metric_match.end) if (
            metric_match.end <= fig.start) else None  # fmt: skip
        if seg_after is not None and seg_after.end() <= fig.start:
            segment = segment or seg_after.group("seg")
        if segment is None and opener_seg is not None and metric.segmentable:
            segment = opener_seg
        if segment is None and geo is not None and ca <= geo.start() < cb and metric.segmentable:
            segment = geo.group(0)
        if segment is None and context.segment is not None and metric.segmentable:
            return None  # a segment is under discussion: this may be the segment's figure
    # basis: words of the clause up to the figure (and "on an adjusted basis" after it)
    lo = max(ca, prev_fig_end, min(metric_match.start, fig.start) - 30)
    cut = max(sentence.rfind(" and ", lo, metric_match.start), sentence.rfind(",", lo,
              metric_match.start))  # fmt: skip
    lo = cut + 1 if cut != -1 and metric_match.end > metric_match.start else lo
    qualifier = re.match(r"^\s*,?\s*(?:on an? [\w-]+(?: [\w-]+)? basis|in constant currency|"
                         r"organically|excluding [^,.;]{3,40})", right, re.I)  # fmt: skip
    basis_text = sentence[lo : max(end, metric_match.end)] + " " + (
        qualifier.group(0) if qualifier else "")  # fmt: skip
    opening = _BASIS_OPENING.match(sentence)
    if opening is not None:
        basis_text = opening.group(0) + " " + basis_text
    basis = anchor.basis if anchor is not None and role != "change" else _basis(
        basis_text, metric, role, call)  # fmt: skip
    if to_level and anchor is not None and basis not in ("adjusted", "gaap"):
        basis = anchor.basis if anchor.basis in ("adjusted", "gaap") else _basis(
            basis_text, metric, role, call)  # fmt: skip
    if anchor is not None and role == "change" and basis is None:
        basis = anchor.basis if anchor.basis in ("adjusted", "gaap") else None
    # period
    period = _figure_period(sentence, fig, metric_match, role, period_words, (ca, cb), figs, i,
                            call, forward, anchor, context.period)  # fmt: skip
    if period is False or period is True:
        return None
    return Attributed(
        fig=fig, metric=metric, role=role, value=value, unit=unit, basis=basis, segment=segment,
        period=period or None, anchor=anchor.fig.start if anchor is not None else None,
    )  # fmt: skip


def _figure_period(
    sentence: str,
    fig: Figure,
    metric_match: MetricMatch,
    role: str,
    period_words: Sequence[Mention],
    clause: tuple[int, int],
    figs: Sequence[Figure],
    i: int,
    call: CallIdentity,
    forward: bool,
    anchor: Attributed | None,
    context_period: Period | None = None,
) -> Period | None | bool:
    """The period a figure is for. Its own period words: in its noun phrase or between metric
    and figure, right after it (up to the next figure), or opening the sentence ("In the third
    quarter,"). Words after a comparison cue name the comparison's period. A comparison with no
    period of its own is left out; a result or change with none is the call's period, unless
    the sentence names another period it cannot be told apart from."""
    ca, cb = clause
    end = fig.start + len(fig.text)
    nxt = figs[i + 1].start if i + 1 < len(figs) else len(sentence)
    lo = min(metric_match.start, fig.start)
    np_start = max(0, lo - 40)
    own: list[Mention] = []
    after: list[Mention] = []
    for m in period_words:
        if np_start <= m.start and m.end <= fig.start and m.start >= ca:
            if not _COMPARE_BEFORE.search(sentence[max(0, m.start - 30) : m.start]) and not (
                re.search(r"\bfrom\s+(?:the\s+)?$", sentence[max(0, m.start - 12) : m.start])
            ):
                own.append(m)
        elif end <= m.start < min(nxt, cb) and m.start - end <= 60:
            cue = _COMPARE_BEFORE.search(sentence[end : m.start])
            if cue is None or role == "comparison":
                after.append(m)
    opening = [m for m in period_words if m.end <= (figs[0].start if figs else 0)
               and re.match(r"^\s*(?:and\s+|so\s+|also\s+|now\s+)?(?:in|for|during|at|as of|"
                            r"through|over)\b", sentence[: m.start], re.I)
               and re.match(r"^[\s\w'’-]*,", sentence[m.end :])]  # fmt: skip
    if role == "comparison":
        base = [m for m in after if not m.is_base] or [m for m in after if m.is_base]
        if not base:
            base = [m for m in period_words if m.is_base and ca <= m.start < cb]
        if not base:
            return False
        first = base[0]
        if (
            first.period is not None
            and first.period.year is None
            and call.period is not None
            and call.period.year is not None
            and any(m.rel == "prior_y" for m in after)
        ):
            # "in the third quarter of last year"
            return replace(first.period, year=call.period.year - 1)  # fmt: skip
        got = resolve(first, call.period, forward=False)
        if (
            got is not None
            and got.kind == "FY"
            and anchor is not None
            and (anchor.period is not None and anchor.period.kind == "Q")
        ):  # "$0.79 compared to $0.33 in fiscal '20": the same quarter of that year
            got = Period("Q", anchor.period.n, got.year)
        return got if got is not None else False
    own_ok = [m for m in own + after if not m.is_base]
    if anchor is not None:
        return anchor_period(anchor)
    if metric_match.metric.name == "dividend" and not own_ok:
        return False  # declared now, paid later: which period a dividend is for must be said
    chosen = own_ok or opening
    if (
        chosen
        and not forward
        and not _PAST_VERB.search(sentence)
        and any(
            ((m.period is not None and m.period.year is None) or m.rel in ("ytd", "this_y"))
            and resolve(m, call.period) != call.period
            for m in chosen
        )
    ):
        return False  # "first half margin is down": a past half, or the coming one?
    if chosen:
        found = _period(sentence, chosen, call, forward)
        return found if found is not None else False
    # nothing bound: the call's period, unless the clause names another own period
    loose = [m for m in period_words if not m.is_base and ca <= m.start < cb]
    loose = [
        m for m in loose if not _COMPARE_BEFORE.search(sentence[max(0, m.start - 30) : m.start])
    ]
    others = {resolve(m, call.period, forward=forward) for m in loose}
    others.discard(None)
    if forward:
        return None  # an outlook's period is found from its sentence and the ones before
    if others and others != {call.period}:
        return False
    if others:
        return call.period
    named = {resolve(m, call.period) for m in period_words if not m.is_base
             and not _COMPARE_BEFORE.search(sentence[max(0, m.start - 30) : m.start])}  # fmt: skip
    named.discard(None)
    if named == {call.period}:
        return call.period  # the sentence names the call's period, in another clause
    if named:
        return False
    if call.period is None or call.period.year is None:
        return False
    if context_period is None and call.period.kind == "Q" and call.period.n == 4:
        return False  # a fourth-quarter call speaks of the quarter and the year: say which
    if context_period is not None and context_period != call.period:
        # the sentences just before speak of another period ("Fiscal '22 was another record
        # year. EPS was ..."): a results sentence with none of its own continues it
        current_year = call.period is not None and context_period.year == call.period.year
        if context_period.kind == "FY" and current_year and call.period.n == 4:
            return context_period  # a Q4 call's full-year paragraph
        if (
            context_period.year is not None
            and call.period is not None
            and (call.period.year is not None and context_period.year < call.period.year)
        ):
            return call.period  # history told in passing; the call reports its own period
        return False
    return call.period


def anchor_period(anchor: Attributed) -> Period | None | bool:
    return anchor.period if anchor.period is not None else False


_RANGE_JOIN = re.compile(r"^\s*(?:to|-|–|—|and|through)\s*$", re.IGNORECASE)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_WORDED = re.compile(
    r"\b(?P<q>(?:(?:low|mid|high|upper)(?:[- ]to[- ](?:low|mid|high|upper))?[- ](?:single|double)"
    r"[- ]digits?|(?:low|mid|high|upper)[- ](?:teens|twenties|thirties)|double[- ]digits?|"
    r"single[- ]digits?))\b(?:\s*(?:percent|%))?",
    re.IGNORECASE,
)
_WORDED_BOUNDS = {
    "low single": (1, 3), "mid single": (4, 6), "high single": (7, 9), "upper single": (7, 9),
    "low double": (10, 13), "double": (10, 19), "single": (1, 9), "low teens": (11, 13),
    "mid teens": (14, 16), "high teens": (17, 19), "upper teens": (17, 19),
    "low twenties": (20, 23), "mid twenties": (24, 26), "high twenties": (27, 29),
    "low thirties": (30, 33), "mid thirties": (34, 36), "high thirties": (37, 39),
}  # fmt: skip


def _worded_bounds(phrase: str) -> tuple[float, float] | None:
    words = re.sub(r"[- ]+", " ", phrase.lower()).replace(" digits", "").replace(" digit", "")
    words = words.replace(" percent", "").replace("%", "").strip()
    if " to " in words:  # "mid to high single"
        first, rest = words.split(" to ", 1)
        tail = rest.split(" ", 1)
        lo = _WORDED_BOUNDS.get(f"{first} {tail[1]}" if len(tail) > 1 else first)
        hi = _WORDED_BOUNDS.get(rest)
        return (lo[0], hi[1]) if lo and hi else None
    return _WORDED_BOUNDS.get(words)


def _scale(fig: Figure) -> float:
    m = _NUMBER.search(fig.text)
    number = float(m.group(0).replace(",", "")) if m else 0.0
    return fig.value / number if number else 1.0


def _signed(high: float, low_signed: float) -> float:
    return -abs(high) if low_signed < 0 else high


def _units(sentence: str, forward: bool) -> tuple[list[Figure], dict[int, float], set[int]]:
    """The sentence's figures with ranges joined ("$6.15 billion to $6.21 billion", "5% to
    7%", "between $1.10 and $1.20"; not "from 44% to 45%"), and, when forward-looking, worded
    ranges ("low teens"). Returns the figures, each range's upper bound by start, and the
    starts of worded ones."""
    figs = figures_in(sentence)
    out: list[Figure] = []
    highs: dict[int, float] = {}
    i = 0
    while i < len(figs):
        a = figs[i]
        b = figs[i + 1] if i + 1 < len(figs) else None
        ranged = forward or re.search(r"\b(?:between|range of|ranging from|range)\s*$",
                                      sentence[: a.start], re.I)  # fmt: skip
        joined = (
            b is not None
            and bool(ranged)
            and bool(_RANGE_JOIN.match(sentence[a.start + len(a.text) : b.start]))
            and not re.search(r"\bfrom\s*(?:approximately |about )?$", sentence[: a.start], re.I)
            and (a.kind == b.kind or a.kind == "plain")
        )
        if joined and b is not None:
            if " and " in sentence[a.start + len(a.text) : b.start] and not re.search(
                r"\bbetween\s*$", sentence[: a.start], re.I
            ):
                out.append(a)
                i += 1
                continue
            low = a.value
            if _scale(a) == 1.0 and _scale(b) != 1.0:
                low = a.value * _scale(b)
            text = sentence[a.start : b.start + len(b.text)]
            out.append(Figure(text, low, b.kind, b.tolerance, a.start))
            highs[a.start] = b.value
            i += 2
            continue
        out.append(a)
        i += 1
    worded: set[int] = set()
    if forward:
        for m in _WORDED.finditer(sentence):
            bounds = _worded_bounds(m.group("q"))
            if bounds is None or any(f.start <= m.start() < f.start + len(f.text) for f in out):
                continue
            out.append(Figure(m.group(0), float(bounds[0]), "percent", 0.0, m.start()))
            highs[m.start()] = float(bounds[1])
            worded.add(m.start())
        out.sort(key=lambda f: f.start)
    return out, highs, worded
