"""The page's server side: `/` with a strict CSP, its static modules, the transcript endpoint
citations point into, and the call id runs are compared by."""

from __future__ import annotations

import re
from pathlib import Path

from app.web import STATIC
from tests.app.api_helpers import api, wait_status
from tests.conftest import SAMPLE

TEXT = SAMPLE.read_text()


def test_page_and_modules_are_served_with_a_strict_policy(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        page = client.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "object-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert page.headers["x-content-type-options"] == "nosniff"
        # everything the page loads comes from this server: no CDN
        refs = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        assert refs and all(r.startswith(("/", "#")) for r in refs), refs
        for ref in (r for r in refs if r.startswith("/ui/")):
            assert client.get(ref).status_code == 200, ref
        js = client.get("/ui/js/main.js")
        assert js.status_code == 200 and "javascript" in js.headers["content-type"]
        assert client.get("/ui/js/nope.js").status_code == 404
        assert "/" not in client.get("/openapi.json").json()["paths"]  # not an API route


def test_every_module_import_resolves_and_nothing_parses_html() -> None:
    modules = sorted((STATIC / "js").glob("*.js"))
    assert len(modules) >= 8
    for path in modules:
        source = re.sub(r"^\s*//.*$", "", path.read_text(), flags=re.MULTILINE)  # comments
        for target in re.findall(r'from "(\.[^"]+)"', source):
            assert (path.parent / target).resolve().is_file(), f"{path.name} imports {target}"
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", source), path.name
        # text from a transcript or a model is never parsed as markup
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in source, f"{path.name} uses {sink}"


def test_transcript_endpoint_and_call_id(tmp_path: Path) -> None:
    from tests.calls import CALL as TEXT  # states the fake report's 10.7%: a citation

    crlf = TEXT.replace("\n", "\r\n")
    with api(tmp_path, api_keys="key-a,key-b") as client:
        a = {"Authorization": "Bearer key-a"}
        run_id = client.post("/v1/runs", json={"transcript": crlf}, headers=a).json()["id"]
        run = wait_status(client, run_id, {"succeeded"}, headers=a)
        assert run["links"]["transcript"] == f"/v1/runs/{run_id}/transcript"
        got = client.get(run["links"]["transcript"], headers=a)
        assert got.status_code == 200 and got.text == TEXT  # the text offsets index
        assert got.headers["content-type"].startswith("text/plain")
        # a citation's offsets (code points) land on its passage in that text
        cite = run["report"]["evidence"]["citations"][0]
        assert cite["claim"] and got.text[cite["start"] : cite["end"]].strip()
        assert run["transcript_sha256"] == run["report"]["transcript_sha256"]
        listed = client.get("/v1/runs", headers=a).json()["items"][0]
        assert listed["transcript_sha256"] == run["transcript_sha256"]
        other = {"Authorization": "Bearer key-b"}
        assert client.get(f"/v1/runs/{run_id}/transcript", headers=other).status_code == 404
        assert client.get(f"/v1/runs/{run_id}/transcript").status_code == 401
        assert client.get("/").status_code == 200  # the page itself is open; it asks for a key


def test_docs_and_ui_files_are_local_and_under_the_page_policy(tmp_path: Path) -> None:
    """Issue 27, 3: /docs loaded Swagger from a CDN with no CSP, and /ui files lacked nosniff.
    /docs is now this server's page and module; every /ui answer carries the page's headers."""
    with api(tmp_path) as client:
        docs = client.get("/docs")
        assert docs.status_code == 200 and docs.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in docs.headers["content-security-policy"]
        assert docs.headers["x-content-type-options"] == "nosniff"
        refs = re.findall(r'(?:src|href)="([^"]+)"', docs.text)
        assert "/ui/js/docs.js" in refs and all(r.startswith("/") for r in refs), refs
        assert "<script>" not in docs.text  # no inline script (the CSP would refuse it)
        for ref in refs:
            assert client.get(ref).status_code == 200, ref
        assert client.get("/redoc").status_code == 404  # ReDoc's page loads from a CDN
        for path in ("/ui/js/main.js", "/ui/style.css", "/ui/js/docs.js", "/ui/js/nope.js"):
            resp = client.get(path)
            assert resp.headers["x-content-type-options"] == "nosniff", path
            assert resp.headers["content-security-policy"].startswith("default-src 'self'")
