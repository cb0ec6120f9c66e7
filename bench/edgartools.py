"""What edgartools would cost and give app/market/sec.py (issue 30), measured offline: its import
(time, memory, what it does to the process), and, driven by respx with the recorded SEC answers of
tests/app/data/sec/, what its company-facts and filing APIs return and which state they keep per
process (identity, parsed facts, HTTP cache, rate limit). Runs in a scratch venv, never ours:

    python3 -m venv /tmp/edgar-venv
    /tmp/edgar-venv/bin/pip install edgartools==5.62.1 respx==0.23.1
    /tmp/edgar-venv/bin/python -m bench.edgartools
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.common import REPO, emit

DATA = REPO / "tests" / "app" / "data" / "sec"
UA = "Earnings Desk bench bench@example.com"
# keys SEC's submissions JSON carries that our recorded file leaves out (all required by
# edgartools except formerNames)
SUBMISSION_KEYS: dict[str, Any] = {
    "addresses": {k: {"street1": "1 Main St", "street2": None, "city": "Springfield",
                      "stateOrCountry": "IL", "zipCode": "62701",
                      "stateOrCountryDescription": "IL"} for k in ("mailing", "business")},
    "category": "Large accelerated filer", "phone": "555-0100", "flags": "", "ein": "990000000",
    "description": "", "website": "", "investorWebsite": "", "stateOfIncorporation": "DE",
    "stateOfIncorporationDescription": "DE", "formerNames": [],
    "insiderTransactionForOwnerExists": 0, "insiderTransactionForIssuerExists": 1,
}  # fmt: skip


def import_cost(runs: int = 3) -> dict[str, Any]:
    """Median wall time and peak RSS of `import edgar` in a fresh interpreter (temporary HOME)."""
    code = (
        "import resource,sys,time;t=time.perf_counter();import edgar;"
        "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss//1024,"
        "len(sys.modules))"
    )
    times, rss, home = [], 0, Path(tempfile.mkdtemp())
    for _ in range(runs):
        env = {**os.environ, "HOME": str(home), "EDGAR_IDENTITY": UA}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        times.append(float(out[0]))
        rss, modules = int(out[1]), int(out[2])
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_dir())
    return {
        "import_s_median": round(sorted(times)[len(times) // 2], 2),
        "import_peak_rss_mb": rss,
        "modules_after_import": modules,
        "import_writes_under_home": written,
    }


def installed_mb(names: list[str]) -> dict[str, float]:
    """Installed size of each distribution (its RECORD), MB."""
    sizes = {}
    for name in names:
        files = metadata.distribution(name).files or []
        sizes[name] = round(sum(f.size or 0 for f in files) / 1e6, 1)
    return sizes


def offline_probe() -> dict[str, Any]:
    import httpx
    import respx

    os.environ["HOME"] = tempfile.mkdtemp()
    os.environ["EDGAR_IDENTITY"] = UA
    import edgar
    from edgar.entity.entity_facts import clear_company_facts_cache
    from edgar.httpclient import HTTP_MGR, get_cache_directory

    complete, facts_override, agents = [False], [None], []

    def sec(request: httpx.Request) -> httpx.Response:
        agents.append(request.headers.get("user-agent"))
        path = request.url.path
        if path == "/files/company_tickers.json":
            return httpx.Response(200, text=(DATA / "company_tickers.json").read_text())
        if path == "/files/company_tickers_mf.json":
            return httpx.Response(200, json={"fields": ["cik", "symbol"], "data": []})
        if path.startswith("/submissions/"):
            body = json.loads((DATA / f"submissions_{path.rsplit('/', 1)[-1]}").read_text())
            return httpx.Response(200, json={**body, **SUBMISSION_KEYS} if complete[0] else body)
        if path.startswith("/api/xbrl/companyfacts/"):
            if facts_override[0] is not None:
                return httpx.Response(200, json=facts_override[0])
            return httpx.Response(
                200, text=(DATA / f"companyfacts_{path.rsplit('/', 1)[-1]}").read_text()
            )
        match = re.fullmatch(r"/Archives/edgar/data/999999/\d{18}/([\d-]+\.txt)", path)
        if match and (DATA / match.group(1)).is_file():
            return httpx.Response(200, text=(DATA / match.group(1)).read_text())
        return httpx.Response(404, text="Not Found")

    out: dict[str, Any] = {"http_cache_dir_fixed_at_import": get_cache_directory()}
    with respx.mock(assert_all_called=False) as mock:
        mock.route(host__regex=r"(www|data)\.sec\.gov").mock(side_effect=sec)
        try:
            _ = edgar.Company("NWO").get_filings(form="8-K")
            out["recorded_submissions_as_is"] = "accepted"
        except Exception as exc:  # the probe reports whatever it raises
            out["recorded_submissions_as_is"] = f"{type(exc).__name__}: {exc}"
        complete[0] = True
        company = edgar.Company("NWO")
        facts = company.get_facts()
        rows = [f for f in facts._facts if f.concept == "us-gaap:NetIncomeLoss"]
        out["fact_fields_we_need"] = all(
            f.filing_date and f.form_type and f.accession for f in rows
        )
        filings = company.get_filings(form="8-K").filter(filing_date="2026-07-25:2026-07-30")
        release = filings[0]
        out["8k_items"] = release.items
        text = release.obj().press_releases[0].text()
        out["ex99_1_text_starts"] = text.splitlines()[0]
        try:
            edgar.Company("ZZZZ")
        except Exception as exc:
            out["unknown_ticker"] = type(exc).__name__
        # a changed answer for the same company: the parsed facts are kept per process
        bad = json.loads((DATA / "companyfacts_CIK0000999999.json").read_text())
        net = bad["facts"]["us-gaap"]["NetIncomeLoss"]["units"]["USD"]
        net[2] = {**net[2], "val": "60,000,000x"}
        facts_override[0] = bad
        sent = len(agents)
        again = edgar.Company("NWO").get_facts()
        out["changed_answer_seen"] = again is not facts
        out["requests_for_second_get_facts"] = len(agents) - sent
        clear_company_facts_cache()
        parsed = edgar.Company("NWO").get_facts()
        odd = [f for f in parsed._facts if f.value == "60,000,000x"]
        out["malformed_value_becomes"] = f"numeric_value={odd[0].numeric_value!r}, no error"
        os.environ["EDGAR_IDENTITY"] = "Someone Else else@example.com"
        edgar.Company("NWO").get_filings(form="8-K")
        out["user_agent_follows_process_env"] = agents[-1] == "Someone Else else@example.com"
        start = time.perf_counter()
        with HTTP_MGR.http_client() as client:
            for i in range(30):
                client.get(f"https://www.sec.gov/Archives/edgar/data/999999/missing{i}.txt")
        out["30_uncached_requests_s"] = round(time.perf_counter() - start, 2)
    return out


def main() -> None:
    try:
        version = metadata.version("edgartools")
    except metadata.PackageNotFoundError:
        sys.exit("edgartools is not installed here: run this in a scratch venv (see the docstring)")
    new = ["edgartools", "pyarrow", "lxml", "rapidfuzz", "unidecode", "beautifulsoup4",
           "soupsieve", "stamina", "tabulate", "textdistance", "humanize", "nest-asyncio",
           "aiofiles", "httpxthrottlecache"]  # fmt: skip
    sizes = installed_mb(new)
    emit(
        {
            "edgartools": version,
            "requires": sorted(
                re.split(r"[<>=!~; \[]", r)[0]
                for r in metadata.requires("edgartools") or []
                if "extra ==" not in r
            ),
            "installed_mb_of_packages_new_to_us": sizes,
            "installed_mb_total_new": round(sum(sizes.values()), 1),
            **import_cost(),
            **offline_probe(),
        }
    )


if __name__ == "__main__":
    main()
