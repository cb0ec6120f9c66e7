"""Key figures and guidance from a transcript's sentences: which metric a figure measures, its
period, what the call compares it with, and forward-looking ranges with their direction."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.chunking import iter_sentences
from core.contract import Direction, GuidanceItem, KeyFigure
from core.grounding import Figure, extract_figures
from core.transcript import Transcript, Turn

# -- metrics ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    pattern: re.Pattern[str]
    weight: float
    kinds: tuple[str, ...] = ("money", "plain", "percent")


def _m(name: str, label: str, words: str, weight: float, kinds: tuple[str, ...] = ()) -> Metric:
    pattern = re.compile(rf"\b(?:{words})\b", re.IGNORECASE)
    return Metric(name, label, pattern, weight, kinds or ("money", "plain", "percent"))


# Most specific first: the first metric whose words stand nearest before a figure (or right
# after it, for "$1.73 per share") names it.
METRICS: tuple[Metric, ...] = (
    _m("eps_adjusted", "Adjusted EPS",
       r"(?:adjusted|non-gaap|core|operating)\s+(?:diluted\s+)?(?:earnings|eps|net income) per "
       r"(?:diluted\s+)?(?:common\s+)?share|adjusted (?:diluted\s+)?eps", 3.0, ("money",)),
    _m("eps", "EPS", r"(?:diluted\s+)?(?:earnings|eps|net income|income) per (?:diluted\s+)?"
       r"(?:common\s+)?share|eps|per diluted (?:common\s+)?share|a share|per share", 2.8,
       ("money",)),
    _m("same_store_sales", "Same-store sales",
       r"same[- ]store sales|comparable (?:store )?sales|comps|comp sales", 2.4, ("percent",)),
    _m("revenue", "Revenue", r"(?:total |net |consolidated )?(?:revenues?|net sales|sales)", 2.6),
    _m("net_income", "Net income", r"net (?:income|earnings)|earned|net profit", 2.4, ("money",)),
    _m("gross_margin", "Gross margin", r"gross (?:profit )?margin", 2.0, ("percent",)),
    _m("operating_margin", "Operating margin",
       r"(?:adjusted )?operating (?:profit )?margin|ebit margin", 2.0, ("percent",)),
    _m("ebitda_margin", "EBITDA margin", r"(?:adjusted )?ebitda margin", 2.0, ("percent",)),
    _m("ebitda", "EBITDA", r"(?:adjusted )?ebitda", 2.0, ("money",)),
    _m("operating_income", "Operating income", r"operating (?:income|profit)", 1.8, ("money",)),
    _m("free_cash_flow", "Free cash flow", r"free cash flow", 2.0, ("money",)),
    _m("operating_cash_flow", "Operating cash flow",
       r"(?:operating cash flow|cash (?:flow )?from operations|cash provided by operating)",
       1.6, ("money",)),
    _m("backlog", "Backlog and bookings", r"backlog|bookings|book-to-bill|orders", 1.8),
    _m("dividend", "Dividend", r"dividends?", 2.2),
    _m("buyback", "Share repurchases", r"repurchase[sd]?|buybacks?|bought back", 1.4,
       ("money", "plain")),
    _m("net_interest_margin", "Net interest margin", r"net interest margin", 2.0, ("percent",)),
    _m("net_interest_income", "Net interest income", r"net interest income", 1.8, ("money",)),
    _m("return_on_assets", "Return on assets", r"return on (?:average )?assets", 1.6,
       ("percent",)),
    _m("return_on_equity", "Return on equity", r"return on (?:average )?(?:tangible )?equity",
       1.6, ("percent",)),
    _m("loans", "Loans", r"(?:average |total )?loans", 1.5, ("money", "percent")),
    _m("deposits", "Deposits", r"(?:average |total )?deposits", 1.5, ("money", "percent")),
    _m("charge_offs", "Net charge-offs", r"(?:net )?charge-offs", 1.4),
    _m("nonperforming", "Nonperforming assets", r"non-?performing (?:assets|loans)", 1.4),
    _m("provision", "Provision for credit losses", r"provision for (?:loan|credit) losses", 1.4),
    _m("gross_profit", "Gross profit", r"gross profit", 1.6, ("money",)),
    _m("expenses", "Operating expenses", r"(?:operating |total )?expenses|opex|sg&a", 1.2),
    _m("capex", "Capital expenditures", r"capital expenditures?|capex", 1.2, ("money",)),
    _m("cash", "Cash", r"cash(?: and (?:cash equivalents|short-term investments))?", 1.0,
       ("money",)),
    _m("debt", "Debt", r"(?:net |total )?debt|leverage", 1.0),
    _m("tax_rate", "Tax rate", r"(?:effective )?tax rate", 1.0, ("percent",)),
    _m("production", "Production and volumes",
       r"production|volumes?|shipments|units sold|output|throughput", 1.6, ("plain", "percent")),
    _m("customers", "Customers and users", r"customers|subscribers|users|members", 1.0,
       ("plain", "percent")),
    _m("growth", "Growth", r"growth|grew|increased|rose", 0.6, ("percent",)),
)  # fmt: skip

METRIC_BY_NAME = {m.name: m for m in METRICS}

_PERIOD = re.compile(
    r"\b(?:(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)[- ]quarter"
    r"|q(?P<q>[1-4])\b"
    r"|(?P<fy>full[- ]year|fiscal(?: year)?|fy)\s*'?(?P<year>(?:19|20)?\d{2})?"
    r"|(?P<cal>(?:19|20)\d{2}))",
    re.IGNORECASE,
)
_ORD = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_COMPARE = re.compile(
    r"\b(?:compared (?:with|to)|versus|vs\.?|from|up|down|increased?|decreased?|grew|declined?|"
    r"rose|fell|improved|an increase of|a decrease of)\b",
    re.IGNORECASE,
)
# where a comparison phrase ends: a clause mark (not a decimal point), "and", "or"
_STOP_AT = re.compile(r"[,;](?=\s|$)|\.(?=\s|$)|\band\b|\bor\b")
_OR_CHANGE = re.compile(r"\s*,?\s*or\s+(?:an? )?(?:increase of |decrease of )?[\d.,]+\s?%", re.I)
_FORWARD = re.compile(
    r"\b(?:guidance|outlook|expects?|expected|expecting|anticipates?|anticipated|forecasts?|"
    r"projects?|projected|targets?|sees|we see|guiding|range of|to be (?:between|in the range)|"
    r"going forward|next (?:quarter|year)|for the (?:full )?(?:fiscal )?year)\b",
    re.IGNORECASE,
)
_DIRECTION_WORDS: tuple[tuple[Direction, str], ...] = (
    ("withdrawn", r"withdr[ae]w\w*|suspend\w*|pull(?:ed|ing)? (?:our|the)"),
    ("raised", r"rais(?:e|ed|ing)|increas(?:e|ed|ing) (?:our|the) (?:guidance|outlook)|upgrad\w*"),
    ("lowered", r"lower(?:ed|ing)?|reduc(?:e|ed|ing)|cut(?:ting)?|trimm\w*"),
    ("reaffirmed", r"reaffirm\w*|reiterat\w*|maintain\w*|confirm\w*|unchanged"),
    ("introduced", r"introduc\w*|initiat\w*|(?:initial|first) (?:guidance|outlook)"),
)
_DIRECTION = [(d, re.compile(rf"\b(?:{w})\b", re.IGNORECASE)) for d, w in _DIRECTION_WORDS]
_RANGE = re.compile(r"\s*(?:to|-|–|and|through)\s*")
_SAFE_HARBOR = re.compile(
    r"forward-looking statements|safe harbor|private securities litigation", re.IGNORECASE
)
_NOT_FIGURE = re.compile(r"^(?:19|20)\d{2}$")  # a year, not a figure
MAX_KEY_FIGURES = 12
MAX_GUIDANCE = 8


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str
    turn: Turn


def sentences(transcript: Transcript) -> list[Sentence]:
    """The transcript's sentences with the turn (section, speaker) each belongs to."""
    out: list[Sentence] = []
    for turn in transcript.turns:
        # a sentence wrapped over lines is one sentence (same length: offsets hold)
        body = transcript.text[turn.start : turn.end].replace("\n", " ")
        for a, b in iter_sentences(body):
            text = body[a:b].strip()
            if text:
                out.append(Sentence(turn.start + a, turn.start + b, text, turn))
    return out


def is_management(speaker: str | None) -> bool:
    """Executives speak for the company; analysts and the operator do not."""
    if not speaker:
        return False
    s = speaker.lower()
    return not (s.startswith("analyst") or s.startswith("operator") or s == "participant")


def is_analyst(speaker: str | None) -> bool:
    return bool(speaker) and str(speaker).lower().startswith("analyst")


def is_qa(section: str) -> bool:
    return bool(re.search(r"\bq\s*&\s*a\b|question", section, re.IGNORECASE))


def period_of(sentence: str) -> str | None:
    """The period a sentence speaks of: Q3, Q3 2019, FY 2021 (None when it names none)."""
    quarter: str | None = None
    year: str | None = None
    full_year = False
    for m in _PERIOD.finditer(sentence):
        if m.group("ord") and quarter is None:
            quarter = f"Q{_ORD[m.group('ord').lower()]}"
        elif m.group("q") and quarter is None:
            quarter = f"Q{m.group('q')}"
        elif m.group("fy"):
            full_year = True
            if m.group("year"):
                y = m.group("year")
                year = year or (y if len(y) == 4 else f"20{y}")
        elif m.group("cal") and year is None:
            year = m.group("cal")
    if full_year and quarter is None:
        return f"FY {year}" if year else "FY"
    if quarter:
        return f"{quarter} {year}" if year else quarter
    return year


_PER_SHARE_AFTER = re.compile(r"\s*(?:per (?:diluted |basic )?(?:common )?share|a share)\b", re.I)


def _per_share(sentence: str, fig_end: int) -> bool:
    """ "$1.73 per diluted share": the figure is earnings (or a dividend) per share."""
    return bool(_PER_SHARE_AFTER.match(sentence, fig_end))


def _metric_for(
    sentence: str, fig_start: int, fig_end: int, kind: str, value: float = 0.0
) -> Metric | None:
    """The metric a figure measures: the nearest metric words before it in its clause (or
    right after it: "$1.73 per diluted share"). Per-share metrics are never in the millions."""
    if kind == "money" and value < 1000 and _per_share(sentence, fig_end):
        before = sentence[max(0, fig_start - 60) : fig_start]
        if re.search(r"dividend", before, re.I):
            return METRIC_BY_NAME["dividend"]
        adjusted = re.search(r"adjusted|non-gaap|excluding|core", sentence[:fig_start], re.I)
        return METRIC_BY_NAME["eps_adjusted" if adjusted else "eps"]
    clause_start = max(sentence.rfind(sep, 0, fig_start) for sep in (";", ":", " and ", ", while"))
    before = sentence[max(0, clause_start, fig_start - 90) : fig_start]
    best: tuple[int, Metric] | None = None
    for metric in METRICS:
        if kind not in metric.kinds or (metric.name.startswith("eps") and value >= 1000):
            continue
        for m in metric.pattern.finditer(before):
            if best is None or m.end() > best[0]:
                best = (m.end(), metric)
    return best[1] if best else None


def _clause_end(sentence: str, i: int, limit: int) -> int:
    """Where the clause from `i` ends: a clause mark, "and"/"or", or the last whole word
    within `limit` characters."""
    rest = sentence[i : i + limit]
    stop = _STOP_AT.search(rest)
    if stop is not None:
        return i + stop.start()
    if i + limit >= len(sentence):
        return len(sentence)
    cut = rest.rfind(" ")
    return i + (cut if cut > 0 else len(rest))


_CHANGE_BEFORE = re.compile(
    r"\b(?P<verb>grew|rose|increased|was up|were up|declined|decreased|fell|was down|were down)\s+"
    r"(?P<pct>[\d.,]+\s?%|[\d.,]+ percent)(?P<rest>[^,;.]{0,40}?)\s+to\s*$",
    re.IGNORECASE,
)
_CLAUSE_OK = re.compile(
    r",\s*(?:compared|up|down|versus|vs|an? (?:increase|decrease)|from)\b", re.I
)


def _change_before(sentence: str, fig: Figure) -> tuple[str, int] | None:
    """ "Revenue grew 8.4% year over year to $612 million": the change, and where it starts."""
    m = _CHANGE_BEFORE.search(sentence[max(0, fig.start - 80) : fig.start])
    if m is None:
        return None
    phrase = " ".join(f"{m.group('verb')} {m.group('pct')}{m.group('rest')}".split())
    return phrase, max(0, fig.start - 80) + m.start("pct")


def _window(sentence: str, start: int, limit: int) -> int:
    """Where a comparison cue may be looked for: up to the next clause break, unless the next
    clause is itself a comparison (", compared with", ", up from")."""
    end = min(len(sentence), start + limit)
    comma = sentence.find(",", start, end)
    if comma != -1 and not _CLAUSE_OK.match(sentence, comma):
        return comma
    return end


def _comparison(sentence: str, fig: Figure, others: Sequence[Figure]) -> str | None:
    """What the sentence compares the figure with: the words from a comparison cue to the next
    figure after it ("compared with $1.78 a share reported in the same quarter of last year"),
    or the change stated with it ("$640 million or 7.3% against the first quarter")."""
    tail_start = fig.start + len(fig.text)
    change = _OR_CHANGE.match(sentence, tail_start)
    if change is not None:
        phrase = sentence[change.start() : _clause_end(sentence, change.end(), 60)]
        return " ".join(phrase.split()).rstrip(" ,;.").removeprefix(",").strip().removeprefix("or ")
    cue = _COMPARE.search(sentence, tail_start, _window(sentence, tail_start, 80))
    if cue is None:
        before = _change_before(sentence, fig)
        return before[0] if before else None
    nxt = next((o for o in others if o.start >= cue.start() and _comparable(fig, o)), None)
    if nxt is None or nxt.start - cue.end() >= 60:
        return None
    phrase = sentence[cue.start() : _clause_end(sentence, nxt.start + len(nxt.text), 50)]
    return " ".join(phrase.split()).rstrip(" ,;.")


def _comparable(fig: Figure, other: Figure) -> bool:
    """What a figure is compared with is of its kind and order of magnitude ($1.73 with $1.78
    a share, not with $115.8 million), or its change in percent."""
    if other.kind == "percent" and fig.kind != "percent":
        return True
    if other.kind != fig.kind or fig.value == 0:
        return other.kind == fig.kind
    return 0.1 <= abs(other.value / fig.value) <= 10


def figures_in(sentence: str) -> list[Figure]:
    """The figures of a sentence, years aside."""
    return [f for f in extract_figures(sentence) if not _NOT_FIGURE.match(f.text)]


def _weight(s: Sentence, n: int, total: int) -> float:
    """Earlier in the call, and in management's prepared remarks, weighs more."""
    position = 1.0 - 0.5 * (n / max(1, total))
    return position + (0.3 if is_management(s.turn.speaker) and not is_qa(s.turn.section) else 0)


def call_period(sents: list[Sentence]) -> str | None:
    """The period the call reports on: the first quarter its prepared remarks name outside a
    forward-looking sentence ("welcome to the second quarter 2026 earnings call")."""
    for s in sents[:40]:
        found = period_of(s.text)
        if found and found.startswith("Q") and not _FORWARD.search(s.text):
            return found
    return None


def key_figures(transcript: Transcript, sents: list[Sentence]) -> list[KeyFigure]:
    """Headline figures, ranked by salience, at most two per metric and 12 in all; a figure
    whose sentence names no period is the call's period's."""
    rows: list[KeyFigure] = []
    default_period = call_period(sents)
    for n, s in enumerate(sents):
        if _SAFE_HARBOR.search(s.text) or _FORWARD.search(s.text):
            continue  # boilerplate, or guidance (kept apart)
        figs = figures_in(s.text)
        changes = {c[1] for f in figs if (c := _change_before(s.text, f)) is not None}
        compared: list[tuple[int, int]] = []  # spans of comparison phrases: not headlines
        for i, fig in enumerate(figs):
            if fig.start in changes or any(a <= fig.start < b for a, b in compared):
                continue  # a change or a figure compared with ("compared with $1.78 a share")
            end = fig.start + len(fig.text)
            metric = _metric_for(s.text, fig.start, end, fig.kind, fig.value)
            if metric is None or (fig.kind == "plain" and fig.value < 10):
                continue
            comparison = _comparison(s.text, fig, figs[i + 1 :])
            if comparison is not None:
                at = s.text.find(comparison, fig.start)
                if at != -1:
                    compared.append((at, at + len(comparison)))
            if (
                i
                and comparison is None
                and _COMPARE.search(s.text, max(0, fig.start - 25), fig.start)
            ):
                continue  # the figure compared with, not a headline
            score = metric.weight * _weight(s, n, len(sents)) + (0.4 if comparison else 0)
            score += 0.6 if _per_share(s.text, end) else 0
            offset = s.start + fig.start
            rows.append(
                KeyFigure(
                    metric=metric.name, label=metric.label, text=fig.text, value=fig.value,
                    kind=fig.kind, period=period_of(s.text) or default_period,
                    comparison=comparison,
                    speaker=s.turn.speaker, section=s.turn.section, start=offset,
                    end=offset + len(fig.text), sentence=s.text, salience=round(score, 3),
                )
            )  # fmt: skip
    _boost_totals(rows)
    rows.sort(key=lambda r: (-r.salience, r.start))
    kept: list[KeyFigure] = []
    per_metric: dict[str, int] = {}
    seen_values: set[tuple[str, float]] = set()
    for r in rows:
        if per_metric.get(r.metric, 0) >= 2 or (r.metric, r.value) in seen_values:
            continue
        per_metric[r.metric] = per_metric.get(r.metric, 0) + 1
        seen_values.add((r.metric, r.value))
        kept.append(r)
        if len(kept) == MAX_KEY_FIGURES:
            break
    return kept


def _boost_totals(rows: list[KeyFigure]) -> None:
    """The largest amount stated for a metric is its total (segments are parts of it)."""
    largest: dict[str, KeyFigure] = {}
    for r in rows:
        biggest = largest.get(r.metric)
        if r.kind == "money" and r.value >= 1e6 and (biggest is None or r.value > biggest.value):
            largest[r.metric] = r
    for i, r in enumerate(rows):
        if largest.get(r.metric) is r:
            rows[i] = r.model_copy(update={"salience": round(r.salience + 0.5, 3)})


def _direction(sentence: str) -> Direction | None:
    for direction, pattern in _DIRECTION:
        if pattern.search(sentence):
            return direction
    return None


def guidance(sents: list[Sentence]) -> list[GuidanceItem]:
    """Forward-looking figures and ranges, management's: the 8 that weigh most (ranges, a
    stated direction, headline metrics, prepared remarks), in the order the call states them."""
    scored: list[tuple[float, GuidanceItem]] = []
    for n, s in enumerate(sents):
        if not _FORWARD.search(s.text) or _SAFE_HARBOR.search(s.text):
            continue
        if s.turn.speaker and not is_management(s.turn.speaker):
            continue
        figs = figures_in(s.text)
        i = 0
        while i < len(figs):
            fig = figs[i]
            pair = figs[i + 1] if i + 1 < len(figs) else None
            joined = pair is not None and bool(
                _RANGE.fullmatch(s.text[fig.start + len(fig.text) : pair.start])
            )
            last = pair if joined and pair is not None else fig
            i += 2 if joined else 1
            metric = _metric_for(
                s.text, fig.start, last.start + len(last.text), last.kind, last.value
            )
            if metric is None or (fig.kind == "plain" and fig.value < 10 and metric.name != "eps"):
                continue
            if joined and re.search(r"\bfrom\s*$", s.text[max(0, fig.start - 12) : fig.start]):
                continue  # the range it replaces ("to $2.40 to $2.46 billion, from $2.35 ...")
            low, high = sorted((fig.value, last.value))
            if joined and fig.kind != last.kind and "plain" not in (fig.kind, last.kind):
                continue
            start = s.start + fig.start
            end = s.start + last.start + len(last.text)
            item = GuidanceItem(
                    metric=metric.name, label=metric.label,
                    text=s.text[fig.start : last.start + len(last.text)], low=low, high=high,
                    kind=last.kind, period=period_of(s.text), direction=_direction(s.text),
                    speaker=s.turn.speaker, section=s.turn.section, start=start, end=end,
                    sentence=s.text,
            )  # fmt: skip
            weight = metric.weight * _weight(s, n, len(sents)) + (1.0 if joined else 0.0)
            weight += 0.5 if item.direction else 0.0
            scored.append((weight, item))
    best = sorted(scored, key=lambda x: (-x[0], x[1].start))[:MAX_GUIDANCE]
    return sorted((item for _, item in best), key=lambda g: g.start)
