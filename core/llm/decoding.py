"""Grounded decoding: a GBNF grammar (llama.cpp's constrained sampling) under which a model's
free text can state a figure only as the call's transcript or financials state it.

Grounding (core.grounding) reads a report's figures the way `NUMBER_RE` does: a number that
starts where no word character or "." precedes it, with the percent, basis-point or scale word
that follows it. The grammar walks the text with the same view, so everything the check would
read as a figure must be one of the sources' figures, written with a suffix of the same kind
(a percent as a percent, millions as millions); everything the check does not read as a figure
stays free: digits inside words ("Q3", "FY2021"), after a "." ("v.2"), in cited chunk ids
("[4bc14f6c498a-0001]"), single-digit counts ("3 risks", "1-Day"), and the conviction that
follows "Conviction:". It changes which figures a model can write, not the check.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

from core.grounding import NUMBER_RE

# How the grammar lets a figure of each kind be written (the forms NUMBER_RE reads as such).
_SUFFIXES: dict[str, list[str]] = {
    "percent": ["%", " percent"],
    "bps": [" basis points", " bps"],
    "thousand": [" thousand"],
    "million": [" million", " mln"],
    "billion": [" billion", " bln"],
    "trillion": [" trillion"],
}
_SCALE_WORDS = {
    "thousand": "thousand", "k": "thousand",
    "million": "million", "mln": "million", "mn": "million", "mm": "million", "m": "million",
    "billion": "billion", "bln": "billion", "bn": "billion", "b": "billion",
    "trillion": "trillion", "tn": "trillion",
}  # fmt: skip

# The fixed part: states of a walk over the text (see the module docstring).
#  s0    where a digit would start a figure (start, after a space or punctuation)
#  w     inside a word or after a "." (digits here are not figures)
#  nw    a character that ends a word, and the state it leads to
#  ap    right after a plain figure: nothing may follow that makes it another figure (a digit,
#        ".5", ",500"), a percent or a scaled amount ("%", "m", " million", " percent")
#  apsp  after a plain figure and a space: any word but a scale or percent word (sw-* rules)
#  as    right after a figure with its suffix
#  cur   a currency sign: an amount follows, one of the call's (so "$3" is a figure, not a count)
_RULES = r"""
root ::= s0
s0 ::= ( [a-zA-Z_] w | nw | conv as | small ap | plain ap | suffixed as )?
w ::= ( [a-zA-Z0-9_] w | nw )?
nw ::= " " s0 | nwns
nwns ::= [^0-9a-zA-Z_.,\[$€£ ] s0 | "." w | "," s0 | cite s0 | "[" nd | cur
ap ::= ( [^0-9a-zA-Z_.,%\[ $€£] s0 | " " apsp | "." nd | "," nd | cite s0 | "[" nd )?
as ::= ( [^0-9a-zA-Z_.,\[$€£] s0 | "." nd | "," nd | cite s0 | "[" nd )?
nd ::= ( [^0-9a-zA-Z_.,\[$€£] s0 | [a-zA-Z_] w | cite s0 | "[" nd | cur )?
cite ::= "[" ( [0-9a-f]{6,12} "-" "f"? [0-9]{4} | "^" [a-zA-Z0-9_-]{1,24} ) "]"
conv ::= ( "Conviction" | "conviction" | "CONVICTION" | "Confidence" | "confidence"
  | "probability" | "Probability" ) [^.0-9\n]{0,20} [0-9]{1,3} "%"?
small ::= [0-9]
cur ::= [$€£] " "? ( plain ap | suffixed as )
"""
# Words that, one space after a number, make it a percent or a scaled amount (NUMBER_RE's).
_AFTER_SPACE = (
    "thousand", "million", "billion", "trillion", "mln", "bln", "mn", "mm", "bn", "tn",
    "k", "m", "b", "percent", "per cent", "bps", "basis",
)  # fmt: skip
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _word_class(excluded: set[str]) -> str:
    """A GBNF class of the word characters but the `excluded` letters (either case)."""
    kept = [c for c in _LETTERS if c not in excluded]
    return "[" + "".join(kept) + "".join(kept).upper() + "0-9_]"


def _space_rules() -> list[str]:
    """`apsp`: after "<plain figure> ", any word that is not one of `_AFTER_SPACE` (a walk
    down their letter tree, each node a rule `sw-<prefix>`)."""
    words = set(_AFTER_SPACE)
    prefixes = sorted({w[:i] for w in words for i in range(1, len(w) + 1)})
    rules: list[str] = []

    def node(prefix: str) -> str:
        children = sorted(
            {p[-1] for p in prefixes if len(p) == len(prefix) + 1 and p.startswith(prefix)}
        )
        alts = [_step(prefix, c) for c in children]
        alts.append(f"{_word_class(set(children))} w")
        if prefix in words:  # the word itself: it must go on (no end, no word break)
            return " | ".join(alts)
        if prefix.endswith(" "):  # a new word starts ("per c..."): figures may start here too
            return " | ".join([*alts, "nw", "conv as", "small ap", "plain ap", "suffixed as"])
        return " | ".join([*alts, "nwns" if " " in children else "nw"])

    roots = sorted({p for p in prefixes if len(p) == 1})
    first = [_step("", c) for c in roots]
    rules.append(
        'apsp ::= ( [^0-9a-zA-Z_%\\[$€£] s0 | cite s0 | "[" nd | cur | '
        + f"{_word_class(set(roots))} w | "
        + " | ".join(first)
        + " )?"
    )
    for prefix in prefixes:
        body = node(prefix)
        name = "sw-" + prefix.replace(" ", "-")
        rules.append(f"{name} ::= ( {body} )" + ("" if prefix in words else "?"))
    return rules


def _step(prefix: str, char: str) -> str:
    """One letter (either case) or the space down the tree of `_AFTER_SPACE`."""
    name = "sw-" + (prefix + char).replace(" ", "-")
    return f'" " {name}' if char == " " else f"[{char}{char.upper()}] {name}"


def _literal(text: str) -> str:
    return json.dumps(text)  # a GBNF string literal: JSON's escaping


def source_figures(sources: Sequence[str]) -> dict[str, set[str]]:
    """Each kind ("plain", "percent", "bps", "million", ...) with the numbers, as written, that
    the sources state as that kind."""
    kinds: dict[str, set[str]] = {}
    for text in sources:
        for m in NUMBER_RE.finditer(text):
            if m.group("pct"):
                kind = "percent"
            elif m.group("bps"):
                kind = "bps"
            elif m.group("scale"):
                kind = _SCALE_WORDS[m.group("scale").lower()]
            else:
                kind = "plain"
            kinds.setdefault(kind, set()).add(m.group("num"))
    return kinds


def figure_grammar(sources: Sequence[str]) -> str:
    """The GBNF grammar for free text whose figures are the `sources`' own."""
    kinds = source_figures(sources)
    rules = [_RULES.strip(), *_space_rules()]
    plain = sorted(n for n in kinds.get("plain", set()) if len(n) > 1)
    rules.append(f"plain ::= {_alternatives(plain)}")
    suffixed: list[str] = []
    for kind, forms in _SUFFIXES.items():
        numbers = sorted(kinds.get(kind, set()))
        if numbers:
            suffix = " | ".join(_literal(f) for f in forms)
            suffixed.append(f"( {_alternatives(numbers)} ) ( {suffix} )")
    rules.append(f"suffixed ::= {' | '.join(suffixed) if suffixed else _NEVER}")
    return "\n".join(rules) + "\n"


# A rule that matches nothing the model can write (GBNF has no empty alternation).
_NEVER = '"\\u0000\\u0000"'


def _alternatives(numbers: Sequence[str]) -> str:
    return " | ".join(_literal(n) for n in numbers) if numbers else _NEVER


# What the running node's figures may rest on (set by nodes.tracing.traced from its state): the
# sources, or a function that reads them, called the first time a grammar is asked for (most
# providers never ask: the sources of a node that calls no local model are never read).
Sources = Sequence[str] | None
_sources: ContextVar[list[Sources | Callable[[], Sources]] | None] = ContextVar(
    "edesk_figure_sources", default=None
)


@contextmanager
def figure_sources(sources: Sources | Callable[[], Sources]) -> Iterator[None]:
    """Within this block, `current_grammar()` constrains free text to `sources`' figures
    (`sources` may be a function: read once, when a grammar is first asked for)."""
    token = _sources.set([sources])
    try:
        yield
    finally:
        _sources.reset(token)


def current_grammar() -> str | None:
    """The grammar for the running node's sources; None outside a node that has a call."""
    holder = _sources.get()
    if holder is None:
        return None
    found = holder[0]
    if callable(found):
        found = holder[0] = found()
    return _grammar(tuple(found)) if found else None


@lru_cache(maxsize=16)  # a run's nodes share their sources: built once (a few ms) per call
def _grammar(sources: tuple[str, ...]) -> str:
    return figure_grammar(sources)
