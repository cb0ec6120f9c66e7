"""A small call that states every kind of fact, shared by the facts tests (core and graph)."""

from __future__ import annotations

CALL = """### Prepared remarks
**Operator**
: Good day, and welcome to the Acme Widgets third quarter fiscal 2022 earnings conference call.

**CEO**
: Good morning. Third quarter revenue was $1.54 billion, up 10.7% from a year ago, and we are
proud of a strong, excellent quarter with record demand. Adjusted earnings per share were $1.31
compared with $1.12 in the third quarter of last year.

**CFO**
: Gross margin was 41.2%, compared to 39.8% last year. For fiscal 2022 we are raising our
revenue guidance to $6.15 billion to $6.21 billion. We are reaffirming our outlook for
adjusted EPS of $5.10 to $5.20 for the full year.

### Q&A
**Operator**
: Our first question comes from Analyst-1.

**Analyst-1**
: Thanks. Can you talk about gross margin pressure from freight costs and what the margin
trajectory looks like?

**CFO**
: We expect gross margin of about 41% next quarter, with freight costs easing.

**Analyst-2**
: On the supply chain, are there risks of disruption, shortages or delays that could hurt
demand, and how uncertain is the holiday season?

**CEO**
: We remain cautious; there is uncertainty and some weakness in parts of the market.
"""
