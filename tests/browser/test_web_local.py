"""The page on the embedded defaults: a real ECTSum call chosen as a file, the bundled model
streaming its text through llama.cpp, the report read and downloaded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import OUT
from tests.live_server import Server, start_server, stop_server

pytestmark = [pytest.mark.browser, pytest.mark.local_model]


@pytest.fixture
def local_server(tmp_path: Path) -> Iterator[Server]:
    srv = start_server(tmp_path, fake=False)
    yield srv
    stop_server(srv)


def test_real_call_on_the_bundled_model(
    local_server: Server, page: Any, ectsum: Path, tmp_path: Path
) -> None:
    call = ectsum / "CFR_q3_2019.txt"
    page.goto(local_server.url + "/")
    page.set_input_files("#transcript-file", str(call))
    assert "CFR_q3_2019.txt" in page.locator(".new-run .row .muted").first.inner_text()
    assert page.locator("#transcript").is_disabled()  # the file is what is sent
    page.select_option("#pipeline", "zero_shot")
    page.fill("#company", "Cullen/Frost Bankers")
    page.click("form.new-run button[type=submit]")
    # the bundled model's own words stream in while it writes
    page.wait_for_selector(".writing .writer pre.stream:not(:empty)", timeout=120_000)
    page.wait_for_selector("table.recs", timeout=600_000)
    status = page.locator(".run-head [data-status]").get_attribute("data-status")
    assert status in ("succeeded", "degraded")
    if status == "succeeded":
        assert page.locator("table.recs tbody tr").count() == 3
    assert page.locator(".grounding").inner_text()  # figures checked against the call
    page.screenshot(path=str(OUT / "zero_shot-local-model.png"), full_page=True)
    with page.expect_download() as info:
        page.click("button[data-download=pdf]")
    info.value.save_as(tmp_path / "report.pdf")
    assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF")
