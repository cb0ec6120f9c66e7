"""The values attribution works on: a figure as attributed (`Attributed`, with the chain of named
rules that decided each of its fields), what the sentences before say (`Context`), and one
figure in its sentence (`Clause`, frozen: everything a rule of core.facts.binding reads)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from core.facts.call import CallIdentity
from core.facts.lexicon import Metric, MetricMatch
from core.facts.periods import Mention, Period
from core.facts.units import unit_of
from core.grounding import Figure

UNNAMED_SEGMENT = "(a segment the call does not name here)"
BOTH = " \x1f "  # joins the two parts of a subject ("A and B to grow 7%"): one row each

# the fields a rule decides, in the order they are decided
FIELDS = ("metric", "role", "sign", "segment", "basis", "period", "identity", "direction")


@dataclass(frozen=True)
class Attributed:
    """A figure with the metric, segment, basis, period and role its words give it, and the
    named rule that decided each (`rules`: (field, rule name) pairs, in the order decided)."""

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
    rules: tuple[tuple[str, str], ...] = ()

    @property
    def chain(self) -> dict[str, str]:
        """field -> the rule that decided it (the last one, where a later rule overrode)."""
        return dict(self.rules)

    def decided(self, field_name: str, rule: str) -> Attributed:
        """The same figure, with `rule` named as the decider of `field_name`."""
        kept = tuple((f, r) for f, r in self.rules if f != field_name)
        return _replace_rules(self, kept + ((field_name, rule),))


def _replace_rules(a: Attributed, rules: tuple[tuple[str, str], ...]) -> Attributed:
    from dataclasses import replace

    return replace(a, rules=rules)


@dataclass
class Context:
    """What the sentences before say about the ones after: the segment being discussed."""

    segment: str | None = None
    segment_age: int = 0
    segment_heading: bool = (
        False  # named by a sentence of no figures: "... our Technology segment."
    )
    period: Period | None = None  # the period the last sentences stated
    period_age: int = 0
    # "I will touch on our fourth quarter results": a heading that opens the quarter's section;
    # on a fourth-quarter call its figures are the quarter's until another period is stated
    section: Period | None = None
    # the one part the figures of a recent sentence named (see binding.recent_part)
    part: str | None = None
    part_age: int = 99
    # the one company-wide result the sentence before stated ("Total production was 3 Bcfe per
    # day."), whose parts "This included ..." may list
    total: Attributed | None = None


@dataclass(frozen=True)
class Clause:
    """One figure in its sentence, with everything attribution reads about it: the sentence's
    figures, metric phrases and period words, the figure's clause, the figures attributed before
    it in the sentence (`last`: the last result or change; `prev`: the one just before, or None
    when that one was left out), the call and the context of the sentences before."""

    sentence: str
    fig: Figure
    i: int
    figs: Sequence[Figure]
    metrics: Sequence[MetricMatch]
    period_words: Sequence[Mention]
    ca: int
    cb: int
    last: Attributed | None
    prev: Attributed | None
    call: CallIdentity
    company_words: frozenset[str]
    opener_seg: str | None
    context: Context
    forward: bool
    geo: re.Match[str] | None
    paired: Mapping[int, MetricMatch | None] = field(default_factory=dict)
    earlier: Sequence[Attributed] = ()  # the figures attributed before it in the sentence

    @cached_property
    def end(self) -> int:
        return self.fig.start + len(self.fig.text)

    @cached_property
    def unit(self) -> str:
        return unit_of(self.fig, self.sentence)

    @cached_property
    def right(self) -> str:
        """The clause after the figure."""
        return self.sentence[self.end : self.cb]

    @cached_property
    def prev_fig_end(self) -> int:
        return max((f.start + len(f.text) for f in self.figs[: self.i]), default=0)

    @cached_property
    def pair(self) -> MetricMatch | None:
        """Its metric in a "respectively" list."""
        return self.paired.get(self.fig.start)

    @cached_property
    def times(self) -> re.Match[str] | None:
        """ "1.3 times debt-to-EBITDA": a multiple named after its figure."""
        if self.unit != "number":
            return None
        return re.match(r"^\s*(?:times|x)\s+", self.right, re.I)
