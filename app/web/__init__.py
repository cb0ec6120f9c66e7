"""The analyst web page: one HTML file and plain ES modules served from `app/web/static`
(no build step, no CDN). `/` is the page, `/ui/...` its files. A strict Content-Security-Policy
allows only this origin's scripts, so text from a transcript or a report can never run."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def install(app: FastAPI) -> None:
    """Serve the page at `/` and its files under `/ui`."""

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html", headers=HEADERS)

    app.mount("/ui", StaticFiles(directory=STATIC), name="ui")
