"""The analyst web page: one HTML file and plain ES modules served from `app/web/static`
(no build step, no CDN). `/` is the page, `/ui/...` its files. A strict Content-Security-Policy
allows only this origin's scripts, so text from a transcript or a report can never run."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import Scope

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
    """Serve the page at `/`, the API reference at `/docs`, and their files under `/ui`."""

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html", headers=HEADERS)

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        """The API reference, drawn from /openapi.json by this server's own module under the
        same policy (FastAPI's Swagger page loads its code from a CDN, with inline script)."""
        return FileResponse(STATIC / "docs.html", media_type="text/html", headers=HEADERS)

    app.mount("/ui", _Static(directory=STATIC), name="ui")


class _Static(StaticFiles):
    """The page's files with the page's headers: nosniff (a file is only ever what its
    extension says), the CSP, no referrer; on every answer, 404 and 304 included."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            response = await super().get_response(path, scope)
        except HTTPException as exc:  # 404, 405: answered by the app's handler, same headers
            headers = {**(exc.headers or {}), **HEADERS}
            raise HTTPException(exc.status_code, exc.detail, headers) from None
        response.headers.update(HEADERS)
        return response
