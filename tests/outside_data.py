"""Data from outside the sample call that a run can carry (statements naming the call's quarter,
so its call facts get a filing check; the vendor's EPS consensus; prices), and a line of each as
it would appear in a prompt: shared by the writer_feedback prompt and graph tests."""

from __future__ import annotations

from core.inputs import EpsConsensus, financials_from_text, prices_from_text
from tests.conftest import SAMPLE

FILED = financials_from_text(
    "fiscalDateEnding,fiscalPeriod,source,totalRevenue,operatingIncome\n"
    "2026-06-30,Q2 2026,Northwind 10-Q (test file),612000000,75000000\n"
    "2026-03-31,Q1 2026,Northwind 10-Q (test file),600000000,70000000\n",
    csv_format=True,
).model_copy(
    update={
        "consensus": EpsConsensus(
            fiscalDateEnding="2026-06-30",  # type: ignore[arg-type]
            reportedDate="2026-07-28",  # type: ignore[arg-type]
            reportedEPS=1.12,
            estimatedEPS=1.05,
        )
    }
)
PRICES = prices_from_text(
    (SAMPLE.parent / "northwind_prices.csv").read_text(encoding="utf-8"), csv_format=True
)
OUTSIDE_THE_CALL = (
    "## Financial data",  # the data block
    "| Revenue | 612,000,000 | 600,000,000 | +2.0% |",  # statements and the computed change
    "Filing check",  # the call facts' check against the filed statements
    "filed: $75.0 million",
    "consensus estimate 1.05",  # the vendor's consensus
    "54.76",  # a close in the prices
)
