"""The word lists attribution reads: words that may stand between a metric and its figure,
qualifiers that name no part of a company, words that name one, and the verbs around a metric."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """A word list written as text, one or more words a line."""
    return frozenset(text.split())


# words that may stand between a metric and its figure
CONNECT = words(
    """
    was were is are be been of totaled totalled totaling totalling total came in at ended
    reached amounted stood to by increased decreased grew rose fell declined improved
    expanded contracted up down approximately about roughly nearly almost around just over
    more than under less a an the record for this that quarter year during period on basis
    gaap non-gaap adjusted reported organic organically constant currency year-over-year
    year-on-year sequentially compared with versus vs vs. from increase decrease decline
    growth improvement also again has have had strong solid all-time high higher lower
    slightly modestly equated equaled equal amounted significantly increasing decreasing
    growing declining improving finished landed diluted share per quarterly fiscal full new
    another nearly some of came coming hit climbed jumped dropped slipped saw reach
    negative minus approached exceeded surpassed which or achieved delivered generated reported
    posted
    recorded produced its our we than expected anticipated planned level more accelerated averaged
    normalized least excess at each both
    decelerated
    """
)

# and, in forward-looking sentences, the words of an outlook
FORWARD_CONNECT = CONNECT | words(
    """
    expect expects expected expecting anticipate anticipates anticipated anticipating now
    continue continues see sees guide guides guiding guidance outlook project projects
    projected forecast forecasts be will should would remain remains range between target
    targets targeting plan plans planning estimate estimates assume assumes assuming likely
    in-line within low high end midpoint toward towards there roughly grow growth decline
    increase rate raising raise raised lowering lower lowered reaffirming reaffirm
    reaffirmed reiterating reiterate maintaining maintain updated updating narrowing
    narrowed initial initiating providing provide expectations being look looking estimated
    forecasted targeted guided planned currently it this go expand improve contract
    compress widen narrow expansion contraction above
    """
)

# words that qualify a metric without naming a part of the company
GENERIC = words(
    """
    total net consolidated overall company company's companywide company-wide quarterly
    unlevered levered customer customers client clients economic operational lock community
    record reported adjusted non-gaap gaap diluted basic core organic underlying strong
    solid higher lower first-quarter second-quarter third-quarter fourth-quarter full-year
    fiscal year quarter annual segment our the its their this that these those a an and
    record-setting all-time robust healthy solid improved increased good great excellent
    very combined comparable q1 q2 q3 q4 fy first second third fourth full operating cash
    total, resulting enterprise enterprise-wide reported, pro forma year-to-date ytd
    targeted planned expected anticipated projected estimated budgeted
    cumulative average sequential year-over-year double-digit double digit strong, overall,
    same as in guidance outlook period-end quarter-end year-end month-end ending hfi hfs
    held-for-investment held-for-sale gross dollar-based pretax pre-tax after-tax aftertax
    regulatory earned fifo lifo new
    """
)

# lowercase words that name a part of a company: a channel, a geography, a product line
PART_WORDS = words(
    """
    domestic international online digital e-commerce ecommerce wholesale direct
    service services product products software hardware subscription subscriptions license
    licensed licensing brand brands consumer commercial industrial residential mortgage
    consumer government defense aerospace marine medical surgical diagnostics pharma
    specialty generic store in-store stores branded private-label club north south east west
    european asian us u.s. uk canadian chinese global-brands segment's division's emerging
    markets developed collaboration royalty royalties
    """
)

STOP_NP = words(
    """
    the our its their a an of in for and while with was were to from at by on that which
    this these we as versus or than both each is are be been has have had do did we're
    we've we'll i i'm i've they they're you it's it he she them bringing taking
    """
)

# verbs whose object is the metric a figure then measures ("we expect revenue of $X")
SUBJECT_VERBS = words(
    """
    expect expects anticipate anticipates see sees project projects forecast forecasts
    target targets guide estimate estimates deliver delivered delivers generate generated
    generates report reported reports post posted achieve achieved produce produced had have
    has saw record recorded grew grow increased increase improved improve expanded expand
    now continue continues still also again generating delivering producing achieving
    reporting posting recording driving assumes assume assuming includes include expecting
    anticipating projecting targeting guiding forecasting seeing planning
    reduce reduces reducing cut cutting lower lowering raise raising boost boosting
    enjoyed enjoys
    """
)

# verbs (and prepositions) after which "$X of <metric>" states the metric's level
OBJECT_VERBS = words(
    """
    delivered generated reported posted recorded had achieved produced earned was were of
    with totaling totaled saw returned paid is are be generating delivering producing
    reporting posting achieving recording earning expect expects anticipate see deliver
    generate produce achieve earn post record spend spent invest invested return returned
    deploy deployed to
    """
)
