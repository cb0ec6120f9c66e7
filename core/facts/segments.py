"""Segments: which part of the company a figure is for. The words before a metric in its noun
phrase ("Journeys revenue", "O&P Americas EBITDA", "online sales"), a name that opens the
sentence ("In Aerospace,", "PrimeLending had"), a geography ("outside the US"), and the part
under discussion since an earlier sentence named it."""

from __future__ import annotations

import re

from core.facts.periods import mentions
from core.facts.words import GENERIC, PART_WORDS, STOP_NP, SUBJECT_VERBS

GEO = re.compile(
    r"\b(?:(?:in|across|from|outside(?: of)?) (?:the )?(?:U\.?S\.?|United States|Europe|EMEA|"
    r"China|Asia(?: Pacific)?|APAC|Latin America|LatAm|Canada|Japan|North America|the Americas|"
    r"emerging markets|international markets)|internationally|domestically)\b"
    # "down 7% in US dollars": a currency, not a region
    r"(?!\.?\s*(?:dollars?|dollar terms|currency)\b)"
)


# "In our offshore/manufactured products segment, we generated ...": a part named in lowercase
SEGMENT_OPENER_WORDS = re.compile(
    r"^(?:In|Within|For|At)\s+(?:our|the)\s+(?P<seg>[a-z][\w/&'’.-]*(?:\s+[a-z][\w/&'’.-]*){0,3})\s+"
    r"(?:segment|business|division)\s*,"
)
SEGMENT_OPENER = re.compile(
    r"^(?:(?i:(?:(?:now|so|next),?\s+)?(?:turning|moving|switching|shifting|(?:let me|let's|I'll|"
    r"I will) (?:now )?turn|looking|going)\s+(?:now\s+)?(?:to|at)\s+)|In\s+|At\s+|For\s+|"
    r"Within\s+)(?:the\s+|our\s+)?"
    r"(?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?[A-Z&][\w&'’.-]*){0,3})"
    r"(?:\s+(?:segment|business|division|group|unit|brands?))?\s*(?:[,:]|\.?$)",
)


# "Latin America was again our fastest-growing region.": a part named by what the call calls it
SEGMENT_CALLED = re.compile(
    r"^(?:(?:And|So|Now),?\s+)?(?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?[A-Z&][\w&'’.-]*){0,3})\s+"
    r"(?:was|is|remained|remains|continues to be|continued to be)\s+(?:again\s+|also\s+|once "
    r"again\s+|still\s+)?(?:our|the)\s+(?:[\w-]+\s+){0,3}?(?:region|segment|business|division|"
    r"geography|unit|platform|brand)\b"
)


SEGMENT_NAMED = re.compile(
    r"\b(?:[Oo]ur|[Tt]he)\s+(?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+|and\s+)?[A-Z&][\w&'’.-]*){0,4})\s+"
    r"(?:segment|business|division|group|unit)\b"
    # "the San Antonio business cycle index": the economy's business, not a part of the company
    r"(?!\s+(?i:cycles?|climate|conditions|environment|activity|confidence|sentiment|"
    r"formation|investment|spending)\b)"
)


SEGMENT_SUBJECT = re.compile(
    r"(?:^(?:(?:During|In|For|At) [^,]{3,50},\s+)?|,\s+|\band\s+)"
    r"(?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?(?:[A-Z&][\w&'’.-]*|systems|solutions|services|"
    r"products|brands)){0,3})(?:'s|’s)?,?\s+"
    r"(?:also\s+|again\s+)?(?:enjoyed|had|has|saw|grew|"
    r"rose|fell|won|booked|generated|"
    r"reported|delivered|saw|posted|grew|achieved|produced|continued|contributed|recorded|"
    r"earned|increased|decreased|experienced|benefited|ended)\b"
)


SEGMENT_AT = re.compile(
    r"\b(?:at|within|for) (?P<seg>[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?[A-Z&][\w&'’.-]*){0,3})\b"
)


# an industry's own measures, not parts of the company: "System-wide RevPAR grew 3.1%",
# "CASM-ex to increase"
_KPI = (
    r"(?:(?:T|P)?RASM|CASM(?:-ex)?|RevPAR|ADR|ARPU|ARPA|ASMs?|RPMs?|EBITDA|EPS|FFO|AFFO|NOI|ROE|ROA|"
    r"ROIC|ROTCE|NIM|CET1|AUM|ARR|GMV|TPV|DAUs?|MAUs?|Churn|Occupancy|Yields?|Capacity|Bookings?)"
)
NOT_SEGMENT = re.compile(
    r"^(?:Q[1-4]|FY|H[12]|Fiscal|First|Second|Third|Fourth|January|February|March|April|May|"
    r"June|July|August|September|October|November|December|Total|Overall|Summary|Addition|"
    r"Closing|Conclusion|Short|Terms|Particular|Fact|Turn|Aggregate|Consolidated|Looking|"
    r"Light|Line|General|Other|Both|Each|All|Our|Its|This|That|These|Those|Some|Most|Many|"
    r"The|GAAP|Non-GAAP|Adjusted|So|Now|Again|Also|Finally|Lastly|Next|Then|Regarding|"
    r"Respect|Order|Terms|Light|Spite|Contrast|Comparison|Response|Connection|It|We|They|He|"
    r"She|There|Here|Everyone|Management|Today|Yesterday|Last|Looking|Importantly|Additionally|"
    r"Overall|Sales|Revenue|Revenues|Earnings|Margins?|Cash|Net|Gross|Operating|Free|Company|"
    r"Equity|Liquidity|Debt|Assets|"
    r"Q&A|Slide|Slides|Page|Chart|Appendix|COVID|Covid|Board|Analysts?|Investors?|Wall|"
    r"America|Americans|Yes|No|Thanks|Thank|Good|Great|Well|OK|Okay|"
    # what a quarter's story is about, not a part of the company: "Volumes decreased due to"
    r"Volumes?|Results?|Demand|Prices?|Pricing|Costs?|Spreads?|Expenses?|Profits?|Shipments?|"
    r"Traffic|Growth|Performance|Income|Interest|Inventor(?:y|ies)|Productivity|Inflation)\b"
    rf"|^.*\b{_KPI}\b"
)


COMPANY_CUE = re.compile(
    r"\b(?:total company|consolidated(?:ly)?|company[- ]wide|system[- ]wide|"
    r"for the (?:total )?company|"
    r"enterprise[- ]wide|in total|on a total company basis|overall company|in summary|to "
    r"summarize|to sum up|all in all|(?:balance sheet|"
    r"cash flows?|capital allocation|liquidity|guidance|outlook)\b)",
    re.IGNORECASE,
)


SEGMENT_AFTER = re.compile(
    r"^\s*(?:for|in|from|at|of)\s+(?:our|the)\s+(?P<seg>[\w&'’.-]+(?:\s+[\w&'’.-]+){0,3}?)\s+"
    r"(?:segment|business|division|unit|group)\b"
    # "in our largest segment, Business & Industry,": the part's name in apposition
    r"(?:,\s+(?P<name>(?-i:[A-Z][\w&'’.-]*(?:\s+(?:[A-Z][\w&'’.-]*|&|and|of))*)),)?",
    re.IGNORECASE,
)
# "our largest segment": words that rank a part without naming it
_RANKING = re.compile(
    r"(?:(?:second|third)[- ])?(?:largest|biggest|smallest|fastest[- ]growing|main|core|key|"
    r"other|another|each|every|one)",
    re.IGNORECASE,
)


def segment_after(m: re.Match[str]) -> str | None:
    """The part a SEGMENT_AFTER match names: its apposed name, else the words before "segment";
    None when those only rank it ("our largest segment")."""
    if m.group("name"):
        return m.group("name")
    return None if _RANKING.fullmatch(m.group("seg")) else m.group("seg")


def np_segment(
    sentence: str,
    at: int,
    company_words: frozenset[str],
    metric: str = "",
) -> str | None | bool:
    """The words before a metric in its noun phrase that name a part of the company
    ("Journeys revenue", "O&P Americas EBITDA", "online sales"); None for the whole company;
    False when the phrase has words that make it another measure or a verb ("pre-provision
    net revenue", "demand drove revenue"): then the figure is not attributed."""
    head = sentence[max(0, at - 60) : at]
    tokens = re.findall(r"[\w'’&./-]+|[,;:()]", head)
    picked: list[str] = []
    for n, tok in enumerate(reversed(tokens)):
        low = tok.lower().strip("'’")
        earlier = tokens[len(tokens) - n - 2] if n + 2 <= len(tokens) else ""
        if (
            low == "and"
            and picked
            and (picked[-1][:1].isupper() or picked[-1].lower() in PART_WORDS)
            and (earlier[:1].isupper() or earlier.lower() in PART_WORDS)
            and earlier.lower() not in STOP_NP
        ):  # "Automotive and Industrial revenue": one part, or two ("Journeys and Schuh
            # revenue")? The words do not say: not attributed ("Collaboration and royalty
            # revenue" too, not "royalty")
            return False
        if tok in ",;:()" or low in STOP_NP or (re.search(r"\d", tok) and not mentions(tok)):
            break
        picked.append(tok)
        if len(picked) >= 6:
            break
    picked.reverse()
    if picked and picked[0][:1].isupper() and picked[0].lower() in STOP_NP | {"so", "and", "but"}:
        picked = picked[1:]
    kept: list[str] = []
    for t in picked:
        low = t.lower().rstrip(".").removesuffix("'s").removesuffix("’s")
        if low == "core" and metric in ("deposits", "loans"):
            return False  # core deposits are a kind of deposits, not adjusted ones
        if low in ("other", "miscellaneous"):
            return False  # "Other operating expense": a line of the statement, not a part
        if low in ("discretionary", "maintenance", "sustaining", "recurring", "nonrecurring") or (
            low in ("growth", "expansion") and metric == "capex"
        ):
            return False  # "Discretionary capital expenditures": a kind of the measure
        if (
            low in GENERIC
            or low in company_words
            or mentions(t)
            or re.fullmatch(
                r"q[1-4]|\d+|'?\d{2}|(?:19|20)\d{2}|first|second|third|fourth|half|quarter|year|"
                r"fiscal|full|annual|quarterly|sequential|the|so|and",
                low,
            )
        ):
            continue
        if t[:1].isupper() or low in PART_WORDS or "&" in t:
            kept.append(t)
            continue
        if low in SUBJECT_VERBS:
            kept = []  # "we expect revenue ...": the phrase starts after the verb
            continue
        return False  # a word that is neither a part's name nor a plain qualifier
    if not kept:
        return None
    return re.sub(r"(?:'s|’s)$", "", " ".join(kept).strip(" ,"))


# a short sentence that turns to a part of the company ("Turning to marine systems.") or to a
# topic that is not one ("Now turning to the balance sheet.")
TRANSITION = re.compile(
    r"^(?:(?:Now|So|Next|Finally|Lastly),?\s+)?(?:(?:turning|moving|switching|shifting|let me turn|"
    r"let's turn|let me move|I'll turn|I will turn|I'll move|going)\s+(?:now\s+)?(?:on\s+)?(?:to|"
    r"at)|(?:let me |I'll |let's )?(?:start|begin)(?:ning)? with|starting with)\s+"
    r"(?:the\s+|our\s+)?(?P<seg>[\w&'’ .-]{2,40}?)(?:\s+(?:segment|business|division|"
    r"group|unit))?\s*(?:[.:]?$|,\s+(?:which|our)\s+(?:is|are|was)\b[^\d]*$)",
    re.IGNORECASE,
)  # "Let me start with Professional Solutions, which is our IT staffing business."
TOPIC_TURN = re.compile(
    r"^(?:(?:Now|So|Next|Finally|Lastly|And),?\s+)?(?:I'll|I will|I'd like to|I want to|let me|"
    r"let's|we'll|we will)\s+(?:now\s+|also\s+|briefly\s+)?(?:spend (?:a (?:few |couple of )?"
    r"(?:minutes?|moments?)|some time|a little time)\s+(?:on|talking about|discussing)|(?:say|"
    r"share) a (?:few )?words? (?:on|about)|talk (?:a (?:little|bit) )?about|comment on|update "
    r"you on|discuss|cover)\s+(?:the\s+|our\s+)?(?P<seg>[A-Z][\w&'’.-]*(?:\s+[A-Z&][\w&'’.-]*)"
    r"{0,3})(?:\s+(?:segment|business|division|group|unit))?\s*(?:[.,:;]|$)"
)  # "I'll now spend a few minutes on Harbor Goods, which had a strong quarter."
TOPIC = re.compile(
    r"\b(?:balance sheet|cash|capital|guidance|outlook|expenses?|liquidity|income statement|"
    r"results|financials?|consolidated|total|company|q&a|questions?|slide|page|summary|"
    r"highlights|details?|overview|call|operator|tax|debt|margins?|revenue|sales|earnings|"
    r"profitability|performance|quarter|year|strategy|priorities)\b",
    re.IGNORECASE,
)
