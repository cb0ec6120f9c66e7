"""Forward-looking or not: the words of an outlook ("we expect", "guidance", "for the full
year we see"), and results spoken of against expectations ("better than we expected"), which
are not."""

from __future__ import annotations

import re

from core.facts.memo import memoized

FORWARD = re.compile(
    r"\b(?:(?:is|are|be|remains?) (?:now )?(?:expected|anticipated|estimated|projected|"
    r"forecast(?:ed)?|planned|targeted|guided) (?:to|at)|expects?|expecting|"
    r"anticipat(?:e|es|ing)|guidance|guiding|guide|outlook|"
    r"forecast(?:s|ing)?|projects?|projecting|project(?:ed)? to|targets?|targeting|"
    r"plan(?:s|ning)? (?:for|to)|we see|now see|estimates?|assum(?:e|es|ing|ption)|"
    r"should (?:be|come|grow|increase|decrease|decline|range|improve)|will (?:be|grow|increase|"
    r"decrease|decline|range|improve|come)|to be (?:in the range|between|approximately|about|"
    r"around|up|down|in line|flat)|likely|going forward|next year|next quarter|"
    r"(?:remainder|rest|balance) of the year|look(?:ing)? to|aim(?:ing)? to|we'll|"
    r"we will|we are (?:targeting|planning)|we intend|(?:is|are) planned|budgeted|"
    r"would (?:be|have)(?! been)|on track to|positioned (?:to|for)|(?:our )?ability to "
    r"(?:deliver|achieve|generate|grow)|path to)\b",
    re.IGNORECASE,
)
# a result spoken of against expectations, or a past target: not guidance
PAST_EXPECTATION = re.compile(
    r"\b(?:than (?:we |our |had |originally |previously |initially )*(?:expected|anticipated|"
    r"forecast(?:ed)?|guided|expectations?|guidance|outlook)|as (?:we )?(?:had )?(?:expected|"
    r"anticipated)|(?:we|had|previously|originally|initially) (?:had )?(?:expected|anticipated|"
    r"guided|targeted|forecast(?:ed)?|projected)|prior (?:guidance|outlook|expectations?)|"
    r"previous (?:guidance|outlook|expectations?)|exceed\w*|ahead of (?:our )?"
    r"(?:expectations|guidance|plan)|beat|in line with (?:our )?(?:expectations|guidance)|"
    r"(?:above|below|within|at|near|toward|exceeding) (?:the )?(?:(?:high|low|upper|lower|top|"
    r"bottom) (?:end|half) of )?(?:our )?(?:guidance|outlook|expectations|(?:guided|expected) "
    r"range))\b",
    re.IGNORECASE,
)
PAST = re.compile(
    r"\b(?:was|were|began|grew|rose|fell|declined|decreased|increased|delivered|generated|"
    r"reported|posted|achieved|ended|had|came(?: in)?|finished|closed|totaled|totalled|improved|"
    r"expanded|contracted|continued|saw|made|drove|did|enjoyed|won|booked|recorded|earned|"
    r"produced|returned|paid|repurchased|identified|exceeded|completed|averaged|invested|spent|"
    r"repaid|deployed|equated|equaled|amounted|stood|landed|climbed|jumped|dropped|slipped|"
    r"reached|hit|topped|surpassed|crossed|demonstrated|"
    r"accelerated|decelerated|expanded|contracted|narrowed|widened|raised|declared|approved|"
    r"authorized|announced)\b",
    re.IGNORECASE,
)


# an outlook stated now, whatever else the sentence compares it with
_NOW_EXPECT = re.compile(
    r"\b(?:we|now|still|continue to) (?:now )?(?:expect|anticipate|project|forecast|see|guide)\b|"
    r"\b(?:raising|lowering|reaffirming|reiterating|updating|narrowing) (?:our |the )?",
    re.IGNORECASE,
)


# a sentence that restates the outlook just given in other terms
_RESTATES = re.compile(
    r"^\s*(?:and\s+|so\s+)?(?:this|that)\s+(?:represents|implies|reflects|translates|equates|"
    r"means|would represent)\b",
    re.IGNORECASE,
)


# "Excluding the amortization expense, our adjusted EPS would be $5.19": the result without an
# item, not an outlook; "It should be noted that ...": a remark
_COUNTERFACTUAL = re.compile(
    r"^\s*(?:(?:and|so),?\s+)?(?:excluding|without|absent|had (?:it|we)|if (?:not for|we had|we "
    r"exclude))\b[^.]*\bwould (?:be|have)\b|\bshould (?:be )?not(?:ed|e)\b|\bworth noting\b",
    re.IGNORECASE,
)


@memoized
def is_forward(text: str, after_forward: bool = False) -> bool:
    """Forward-looking: an outlook's words, or, right after such a sentence, a fragment with no
    verb of its own ("And then, adjusted EPS growth of 6% to 8%.")."""
    if _COUNTERFACTUAL.search(text) and not _NOW_EXPECT.search(text):
        return False
    if after_forward and _RESTATES.match(text):
        return True  # "This represents 8% to 9% organic growth, higher than we expected"
    if PAST_EXPECTATION.search(text) and not _NOW_EXPECT.search(text):
        return False  # "better than we expected"; but "we now expect X, above our prior outlook"
    verbless = not PAST.search(text) and not re.search(r"\b(?:is|are|has|have)\b", text, re.I)
    return bool(FORWARD.search(text)) or (after_forward and verbless)
