"""`earnings-desk backtest` as a user runs it: an eval folder, a price folder, call dates; and
every kind of bad price or call file gets a message naming the file and row, exit 2."""

from __future__ import annotations

import csv
import json
from datetime import date
from pathlib import Path

import pytest

from app.cli import main
from core.llm.fake import block
from tests.scripts import weekdays

DAYS = weekdays(date(2024, 1, 1), 40)


def price_csv(path: Path, closes: list[float], days: list[date] = DAYS) -> None:
    lines = ["date,open,high,low,close,volume"]
    lines += [f"{d},{c},{c},{c},{c},1000" for d, c in zip(days, closes, strict=False)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def report(path: Path, positions: tuple[str, str, str], conv: int = 80) -> None:
    b = block(positions, (conv, conv, conv))
    recs = [{"horizon": h, **b[k]} for h, k in zip(("1d", "1w", "1m"), b, strict=True)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"report": {"recommendations": recs}}), encoding="utf-8")


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    ev, prices = tmp_path / "eval", tmp_path / "prices"
    prices.mkdir()
    call = DAYS[5]
    # UP jumps 10% on the call day; DOWN falls 5%; SPY is flat
    price_csv(prices / "UP.csv", [100.0 if d < call else 110.0 for d in DAYS])
    price_csv(prices / "DOWN.csv", [100.0 if d < call else 95.0 for d in DAYS])
    price_csv(prices / "SPY.csv", [400.0] * len(DAYS))
    report(ev / "reports/local/findebate/A.json", ("LONG", "LONG", "LONG"))
    report(ev / "reports/local/findebate/B.json", ("LONG", "SHORT", "SHORT"))
    report(ev / "reports/local/zero_shot/A.json", ("SHORT", "SHORT", "SHORT"))
    calls = tmp_path / "calls.csv"
    calls.write_text(f"id,ticker,date\nA,UP,{call}\nB,DOWN,{call}\n", encoding="utf-8")
    return {"eval": ev, "prices": prices, "calls": calls, "root": tmp_path}


def run(w: dict[str, Path], *extra: str) -> int:
    return main(["backtest", str(w["eval"]), "--prices", str(w["prices"]),
                 "--calls", str(w["calls"]), *extra])  # fmt: skip


def test_backtest_scores_pipelines_and_writes_every_file(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(world) == 0
    out = world["eval"] / "backtest"
    for name in (
        "backtest.md",
        "backtest.csv",
        "per_call.csv",
        "calibration.csv",
        "calibration.png",
    ):
        assert (out / name).is_file(), name
    rows = {(r["group"], r["horizon"]): r for r in csv.DictReader((out / "backtest.csv").open())}
    fd = rows[("local/findebate", "1d")]
    assert (fd["hits"], fd["misses"], fd["hit_rate"]) == ("1", "1", "0.5")  # A hit, B missed
    week = rows[("local/findebate", "1w")]
    assert week["hit_rate"] == "1.0" and week["not_covered"] == "0"
    # a 21-trading-day window needs 21 bars from the call: 35 are left, so it is covered
    assert rows[("local/zero_shot", "1d")]["hit_rate"] == "0.0"
    assert "| local/findebate | 1d |" in capsys.readouterr().out


def test_window_past_the_data_and_unpriced_calls_are_listed(world: dict[str, Path]) -> None:
    price_csv(world["prices"] / "UP.csv", [100.0] * 7)  # ends the day after the call
    report(world["eval"] / "reports/local/findebate/C.json", ("LONG",) * 3)  # no date for C
    assert run(world) == 0
    text = (world["eval"] / "backtest/backtest.md").read_text()
    assert "## Not covered by the price data" in text
    assert "local/findebate/C: no date and ticker in --calls" in text
    assert "local/findebate/A 1w: UP: prices end on 2024-01-09, before trading day 5" in text
    assert "local/zero_shot/A 1m: UP: prices end on" in text
    # 5 bars before the call: no market model, said beside the table, not dropped
    assert "## Event study (market-model abnormal returns)" in text
    assert "| local/findebate | 1d | 0 | n/a | n/a | n/a | n/a | 2 |" in text
    assert "- DOWN 2024-01-08 1d: DOWN: 0 trading days with SPY in the estimation window" in text


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["2024-01-01,1,1,1,1", "2024-01-01,2,2,2,2"], "two bars for 2024-01-01"),
        (["2024-01-01,1,1,1,1", "2024-01-02,1,1,1,-3"], "UP.csv row 3: must be > 0"),
        (["2024-01-01,1,1,1,1", "2024-01-02,1,1,1,0"], "UP.csv row 3"),
        (["2024-01-01,1,1,1,1", "2024-01-02,1,1,1,abc"], "UP.csv row 3"),
    ],
    ids=["duplicate-date", "negative", "zero", "not-a-number"],
)
def test_bad_price_rows_name_the_file_and_row(
    world: dict[str, Path], rows: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (world["prices"] / "UP.csv").write_text("date,open,high,low,close\n" + "\n".join(rows) + "\n")
    assert run(world) == 2
    err = capsys.readouterr().err
    assert message in err and "UP.csv" in err


def test_unsorted_dates_are_read_in_date_order(world: dict[str, Path]) -> None:
    call = DAYS[5]
    closes = [100.0 if d < call else 110.0 for d in DAYS]
    pairs = list(zip(DAYS, closes, strict=True))[::-1]
    price_csv(world["prices"] / "UP.csv", [c for _, c in pairs], [d for d, _ in pairs])
    assert run(world) == 0
    rows = list(csv.DictReader((world["eval"] / "backtest/per_call.csv").open()))
    a = next(
        r for r in rows if r["id"] == "A" and r["horizon"] == "1d" and r["pipeline"] == "findebate"
    )
    assert float(a["return"]) == pytest.approx(0.10)


@pytest.mark.parametrize(
    ("calls", "message"),
    [
        ("id,ticker,date\nA,UP,2024-13-01\n", "row 2: date '2024-13-01' is not YYYY-MM-DD"),
        ("id,date\nA,2024-01-05\n", "missing column(s) ticker"),
        ("id,ticker,date\n,UP,2024-01-05\n", "row 2: needs an id and a ticker"),
    ],
)
def test_bad_call_files(
    world: dict[str, Path], calls: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    world["calls"].write_text(calls, encoding="utf-8")
    assert run(world) == 2
    assert message in capsys.readouterr().err


def test_missing_folders_are_clear(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["backtest", str(world["root"] / "nope"), "--prices", str(world["prices"]),
                 "--calls", str(world["calls"])]) == 2  # fmt: skip
    assert "no reports/ folder" in capsys.readouterr().err
    assert main(["backtest", str(world["eval"]), "--prices", str(world["root"] / "nope"),
                 "--calls", str(world["calls"])]) == 2  # fmt: skip
    assert "not a folder of price files" in capsys.readouterr().err


def test_baselines_are_rows_and_each_pipeline_is_compared_with_them(
    world: dict[str, Path],
) -> None:
    """always_long and pead (from the calls file's EPS and consensus) are scored like the
    pipelines; each pipeline's paired difference of signed return against each baseline is
    a table with the eval's statistics."""
    call = DAYS[5]
    world["calls"].write_text(
        "id,ticker,date,reported_eps,estimated_eps\n"
        f"A,UP,{call},1.20,1.00\nB,DOWN,{call},0.80,1.00\n",
        encoding="utf-8",
    )
    report(world["eval"] / "reports/local/facts/A.json", ("NEUTRAL",) * 3)
    assert run(world) == 0
    out = world["eval"] / "backtest"
    rows = {(r["group"], r["horizon"]): r for r in csv.DictReader((out / "backtest.csv").open())}
    always = rows[("baseline/always_long", "1d")]
    assert (always["hits"], always["misses"], always["reports"]) == ("1", "1", "2")
    pead = rows[("baseline/pead", "1d")]
    assert (pead["hits"], pead["misses"], pead["hit_rate"]) == ("2", "0", "1.0")
    against = {(r["group"], r["baseline"], r["horizon"]): r
               for r in csv.DictReader((out / "baselines.csv").open())}  # fmt: skip
    # findebate 1d: LONG on UP (+10%) and LONG on DOWN (-5%); pead: +10% and +5%
    vs_pead = against[("local/findebate", "baseline/pead", "1d")]
    assert float(vs_pead["mean_diff"]) == pytest.approx(-0.05) and vs_pead["n"] == "2"
    assert vs_pead["verdict"] == "not significant"
    vs_long = against[("local/findebate", "baseline/always_long", "1d")]
    assert float(vs_long["mean_diff"]) == pytest.approx(0.0)
    vs_facts = against[("local/findebate", "local/facts", "1d")]  # facts: NEUTRAL on A only
    assert vs_facts["n"] == "1" and float(vs_facts["mean_diff"]) == pytest.approx(0.10)
    assert not any(k[0] in ("local/facts", "baseline/pead") for k in against)
    text = (out / "backtest.md").read_text()
    assert "## Against the baselines" in text and "| baseline/pead | 1d |" in text


def test_a_consensus_that_is_not_a_number_names_file_row_and_field(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    world["calls"].write_text(
        f"id,ticker,date,reported_eps,estimated_eps\nA,UP,{DAYS[5]},1.2x,1.0\n", encoding="utf-8"
    )
    assert run(world) == 2
    assert "calls.csv row 2: reported_eps '1.2x' is not a number" in capsys.readouterr().err
