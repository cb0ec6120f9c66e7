"""financials / prices: the seeds' Alpha Vantage shapes, CSV, and clear refusals."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from pydantic import ValidationError

from core.grounding import check_numbers
from core.inputs import Financials, InputError, Prices, financials_from_text, prices_from_text

SEED_LIKE: dict[str, Any] = {
    "ECC": "ABM_q3_2021", "Ticker": "ABM", "Quarter": "3", "Year": "2021",
    "most_recent_earnings": {"fiscalDateEnding": "2021-07-31", "reportedCurrency": "USD",
                             "grossProfit": "255000000", "totalRevenue": "1543100000",
                             "researchAndDevelopment": "None", "netIncome": "-13700000",
                             "costofGoodsAndServicesSolo": "1288100000"},
    "previous_earnings": {"fiscalDateEnding": "2021-04-30", "totalRevenue": "1497400000"},
    "same_quarter_last_year_earnings": {"fiscalDateEnding": "2020-07-31",
                                        "totalRevenue": 1394100000},
}  # fmt: skip


def test_seed_layout_parses() -> None:
    f = Financials.model_validate(SEED_LIKE)
    q = f.most_recent_earnings
    assert q.totalRevenue == 1_543_100_000 and q.netIncome == -13_700_000
    assert q.researchAndDevelopment is None  # "None" means not reported
    assert f.ticker == "ABM" and f.same_quarter_last_year_earnings is not None
    assert [x.fiscalDateEnding for x in f.ordered()] == [
        date(2021, 7, 31),
        date(2021, 4, 30),
        date(2020, 7, 31),
    ]


def test_financial_figures_ground_report_numbers() -> None:
    f = Financials.model_validate(SEED_LIKE)
    checks = check_numbers("Revenue was $1.54 billion, up from $1.39 billion.", [f.figures_text()])
    assert [c.grounded for c in checks] == [True, True]


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        (
            {"most_recent_earnings": {"fiscalDateEnding": "2021-07-31", "totalRevenue": "lots"}},
            "totalRevenue",
        ),
        ({"most_recent_earnings": {"totalRevenue": "1"}}, "fiscalDateEnding"),
        ({"previous_earnings": {"fiscalDateEnding": "2021-08-31"}}, "previous_earnings"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_financials_name_the_field(patch: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        Financials.model_validate({**SEED_LIKE, **patch})


def test_financials_csv_picks_quarters() -> None:
    text = (
        "fiscalDateEnding,totalRevenue,netIncome\n"
        "2020-07-31,1394100000,56000000\n2021-07-31,1543100000,-13700000\n"
        "2021-04-30,1497400000,31100000\n2021-01-31,1460000000,None\n"
    )
    f = financials_from_text(text, csv_format=True)
    assert f.most_recent_earnings.fiscalDateEnding == date(2021, 7, 31)
    assert f.previous_earnings and f.previous_earnings.fiscalDateEnding == date(2021, 4, 30)
    assert f.same_quarter_last_year_earnings
    assert f.same_quarter_last_year_earnings.fiscalDateEnding == date(2020, 7, 31)
    assert len(f.ordered()) == 4


def test_financials_bad_json_and_csv() -> None:
    with pytest.raises(InputError, match="not valid JSON"):
        financials_from_text("{oops", csv_format=False)
    with pytest.raises(InputError, match="no header"):
        financials_from_text("", csv_format=True)
    with pytest.raises(ValidationError, match="totalRevenue"):
        financials_from_text("fiscalDateEnding,totalRevenue\n2021-07-31,abc\n", csv_format=True)


def _bars(n: int, start: float = 10.0) -> list[dict[str, Any]]:
    return [
        {
            "date": f"2021-09-{d + 1:02d}",
            "open": start + d,
            "high": start + d + 1,
            "low": start + d - 1,
            "close": start + d + 0.5,
            "volume": 1000,
        }
        for d in range(n)
    ]


def test_prices_simple_and_alpha_vantage() -> None:
    av = {
        "Meta Data": {"2. Symbol": "SPY"},
        "Time Series (Daily)": {
            "2021-09-02": {
                "1. open": "450",
                "2. high": "452",
                "3. low": "449",
                "4. close": "451",
                "5. volume": "1000",
            },
            "2021-09-01": {
                "1. open": "448",
                "2. high": "451",
                "3. low": "447",
                "4. close": "450",
                "5. volume": "900",
            },
        },
    }
    p = Prices.model_validate(
        {
            "company": {"symbol": "ABM", "bars": list(reversed(_bars(5)))},
            "benchmark": av,
            "as_of": "2021-09-08",
        }
    )
    assert [b.date.day for b in p.company.bars] == [1, 2, 3, 4, 5]  # sorted oldest first
    assert p.benchmark and p.benchmark.symbol == "SPY" and p.benchmark.bars[-1].close == 451


@pytest.mark.parametrize(
    ("series", "message"),
    [
        ({"symbol": "X", "bars": _bars(1)}, "at least 2"),
        ({"symbol": "X", "bars": _bars(3) + _bars(1)}, "two bars for"),
        ({"symbol": "X", "bars": [{**_bars(1)[0], "low": 99}] + _bars(3)[1:]}, "above high"),
        ({"symbol": "X", "bars": [{**_bars(1)[0], "close": -1}] + _bars(3)[1:]}, "greater than"),
        ({"symbol": "X", "bars": [{**_bars(1)[0], "close": "n/a"}] + _bars(3)[1:]}, "number"),
    ],
)
def test_bad_prices(series: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Prices.model_validate({"company": series})


def test_no_bar_on_or_after_the_call_date_survives() -> None:
    """Look-ahead is impossible by construction: a Prices with the call date holds no bar
    dated on or after it, so no pipeline can read the market's reaction."""
    bars = _bars(5)
    call = bars[3]["date"]
    p = Prices.model_validate(
        {"company": {"symbol": "X", "bars": bars}, "benchmark": {"symbol": "SPY", "bars": bars},
         "as_of": call}
    )  # fmt: skip
    assert p.benchmark is not None
    assert all(str(b.date) < call for b in [*p.company.bars, *p.benchmark.bars])
    assert len(p.company.bars) == 3


def test_as_of_needs_history_before_the_call() -> None:
    with pytest.raises(ValidationError, match="2 bars before 2021-08-01"):
        Prices.model_validate({"company": {"symbol": "X", "bars": _bars(5)}, "as_of": "2021-08-01"})


def test_prices_csv_with_symbols() -> None:
    rows = ["date,symbol,open,high,low,close,volume"]
    for b in _bars(4):
        rows.append(f"{b['date']},ABM,{b['open']},{b['high']},{b['low']},{b['close']},10")
        rows.append(f"{b['date']},SPY,400,401,399,400.5,99")
    p = prices_from_text("\n".join(rows), csv_format=True)
    assert p.company.symbol == "ABM" and p.benchmark and p.benchmark.symbol == "SPY"
    rows.append("2021-09-01,XYZ,1,2,0.5,1.5,1")
    with pytest.raises(InputError, match="--ticker"):
        prices_from_text("\n".join(rows), csv_format=True)
    assert prices_from_text("\n".join(rows), csv_format=True, ticker="ABM").company.symbol == "ABM"


def test_comparison_table_infers_quarters_and_marks_gaps() -> None:
    from core.inputs import comparison_table

    fin = Financials.model_validate(
        {
            "most_recent_earnings": {
                "fiscalDateEnding": "2026-06-30",
                "totalRevenue": "110",
                "netIncome": "-5",
            },
            "quarters": [
                {"fiscalDateEnding": "2026-03-31", "totalRevenue": "100", "netIncome": "10"},
                {"fiscalDateEnding": "2025-06-30", "totalRevenue": "88"},
            ],
        }
    )
    table = comparison_table(fin)
    assert "| 2026-06-30 | 2026-03-31 | QoQ | 2025-06-30 | YoY |" in table
    assert "| Revenue | 110 | 100 | +10.0% | 88 | +25.0% |" in table
    assert "| Net income | -5 | 10 | -150.0% | n/a | n/a |" in table
    assert "Gross profit" not in table  # not reported this quarter
    alone = comparison_table(Financials.model_validate(
        {"most_recent_earnings": {"fiscalDateEnding": "2026-06-30", "totalRevenue": "1"}}
    ))  # fmt: skip
    assert "| not supplied | QoQ | not supplied | YoY |" in alone
