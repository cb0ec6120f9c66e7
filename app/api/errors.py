"""Every refusal is JSON: `{"detail": [{"loc": [...], "msg": ..., "type": ...}]}` for bad fields
(422, the same shape FastAPI uses), `{"detail": "..."}` otherwise. No refusal echoes more than
`ECHO_LIMIT` characters of anything the request sent (`clip_echo`)."""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match


class FieldError(Exception):
    """A request field is unusable: 422 naming it (or another 4xx, e.g. 413 for size)."""

    def __init__(
        self,
        field: str,
        message: str,
        *,
        status: int = 422,
        kind: str = "value_error",
        where: tuple[str | int, ...] = (),
        source: str = "body",
    ):
        """`where`: the path in the body to the object holding `field` (e.g. calls, 0);
        `source`: "body", or "query" for a query parameter."""
        super().__init__(message)
        self.field, self.message, self.status, self.kind = field, message, status, kind
        self.loc: list[str | int] = [source, *where, field]


class ApiError(Exception):
    """A refusal that is not about one field (401, 404, 409, 415...)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


class BodyInvalid(Exception):
    """The body failed its schema: 422 with every field's error."""

    def __init__(self, detail: list[Any]) -> None:
        super().__init__("invalid body")
        self.detail = detail


def validation_detail(exc: ValidationError, prefix: tuple[str, ...] = ("body",)) -> list[Any]:
    return [
        {"loc": [*prefix, *e["loc"]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_context=False, include_input=False)
    ]


log = logging.getLogger("earnings_desk.api")
ECHO_LIMIT = 200  # characters of one echoed value (a quoted field, an id, a key)
_LONG = f"{{{ECHO_LIMIT + 1},}}"  # a regex repeat: longer than ECHO_LIMIT
_QUOTED = re.compile(f"'[^'\\n]{_LONG}'|\"[^\"\\n]{_LONG}\"")
_RUN = re.compile(f"\\S{_LONG}")


def clip_echo(message: str) -> str:
    """A refusal's text with every value it echoes cut to ECHO_LIMIT characters and '…' (a
    quoted value, an unbroken run such as an id or a key), and the whole to 5 x ECHO_LIMIT."""
    message = _QUOTED.sub(lambda m: m[0][: ECHO_LIMIT + 1] + "…" + m[0][-1], message)
    message = _RUN.sub(lambda m: m[0][:ECHO_LIMIT] + "…", message)
    return message if len(message) <= 5 * ECHO_LIMIT else message[: 5 * ECHO_LIMIT] + "…"


def _text(message: str) -> str:
    """A message safe to encode (lone surrogates shown as escapes) and clipped (`clip_echo`)."""
    return clip_echo(message.encode("utf-8", "backslashreplace").decode("utf-8"))


def _detail(detail: Any) -> Any:
    """Every refusal's detail, its messages and locations (a dict key the body sent is one)
    clipped: a string, or a list of field errors."""
    if isinstance(detail, str):
        return _text(detail)
    if isinstance(detail, list):
        return [
            {**e, "msg": _text(str(e.get("msg", ""))),
             "loc": [_text(x) if isinstance(x, str) else x for x in e.get("loc", [])]}
            if isinstance(e, dict) else e
            for e in detail
        ]  # fmt: skip
    return detail


def install(app: FastAPI) -> None:
    @app.exception_handler(FieldError)
    async def _field(_: Request, exc: FieldError) -> JSONResponse:
        detail = _detail([{"loc": exc.loc, "msg": exc.message, "type": exc.kind}])
        return JSONResponse({"detail": detail}, status_code=exc.status)

    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        detail = _detail(exc.message)
        return JSONResponse({"detail": detail}, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(BodyInvalid)
    async def _body(_: Request, exc: BodyInvalid) -> JSONResponse:
        return JSONResponse({"detail": _detail(exc.detail)}, status_code=422)

    @app.exception_handler(ValidationError)
    async def _pydantic(_: Request, exc: ValidationError) -> JSONResponse:
        return JSONResponse({"detail": _detail(validation_detail(exc))}, status_code=422)

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, _: ClientDisconnect) -> Response:
        """The client went away mid-body (an aborted upload): one line, not a traceback; the
        answer goes nowhere."""
        log.info("%s %s: client disconnected before its body arrived", request.method,
                 request.url.path)  # fmt: skip
        return Response(status_code=400)

    @app.exception_handler(RecursionError)
    async def _deep(_: Request, exc: RecursionError) -> JSONResponse:
        """A request body nested deeper than the JSON parser goes is the client's error."""
        if "JSON" not in str(exc):
            raise exc  # a recursion of ours: a 500, logged
        message = "the request body's JSON is nested too deeply"
        return JSONResponse({"detail": message}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def _request(_: Request, exc: RequestValidationError) -> JSONResponse:
        """FastAPI's own handler echoes each field's `input` (a whole transcript; a lone
        surrogate in it cannot even be encoded): the field, message and type only."""
        detail = _detail([
            {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")),
             "type": e.get("type", "value_error")}
            for e in exc.errors()
        ])  # fmt: skip
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> Any:
        """Starlette's 405 names the methods of the first route on the path only (GET and DELETE
        on /v1/runs/{id} are two routes): Allow lists every method the path takes."""
        if exc.status_code == 405:
            methods = {
                method
                for method in ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT")
                if any(
                    route.matches({**request.scope, "method": method})[0] == Match.FULL
                    for route in request.app.router.routes
                )
            }
            if methods:
                headers = {**(exc.headers or {}), "Allow": ", ".join(sorted(methods))}
                exc = HTTPException(405, exc.detail, headers=headers)
        if isinstance(exc.detail, str | list):
            exc = HTTPException(exc.status_code, _detail(exc.detail), headers=exc.headers)
        return await http_exception_handler(request, exc)
