"""Turn a POST body (JSON, or multipart with a transcript file) into a validated RunCreate and a
parsed transcript, refusing bad input with a 4xx that names the field, before any run exists."""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import date
from typing import Any

from fastapi import Request
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from app.api.errors import ApiError, BodyInvalid, FieldError, validation_detail
from app.api.schemas import RunCreate
from app.market.http import VendorError
from app.market.sources import fill, resolve_source
from app.settings import Settings
from core.documents import transcript_text
from core.inputs import InputError, before_the_call
from core.transcript import (
    Transcript,
    TranscriptError,
    TranscriptTooLarge,
    TranscriptTooManyLines,
    parse_transcript,
)

log = logging.getLogger(__name__)
EXTRA_BODY_BYTES = 4_000_000  # room for financials / prices next to the transcript


TRANSCRIPT_LIMIT = "EDESK_MAX_TRANSCRIPT_BYTES, with room for the other fields"


def _refuse_declared_oversize(
    request: Request, limit: int, field: str = "transcript", setting: str = TRANSCRIPT_LIMIT
) -> None:
    """413 before reading anything when Content-Length already says the body is too big; the
    refusal names the field the limit is about ("" for the body as a whole) and its setting."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise FieldError(
            field,
            f"request body is {int(declared):,} bytes; the limit is {limit:,} ({setting})",
            status=413,
            kind="too_large",
        )


async def _read_body(
    request: Request, limit: int, field: str = "transcript", setting: str = TRANSCRIPT_LIMIT
) -> bytes:
    _refuse_declared_oversize(request, limit, field, setting)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise FieldError(
                field,
                f"request body is over the {limit:,}-byte limit ({setting})",
                status=413,
                kind="too_large",
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _json_field(name: str, raw: str | None) -> Any:
    if raw is None or raw == "":
        return None
    try:
        return loads(raw)
    except json.JSONDecodeError as exc:
        raise FieldError(name, f"not valid JSON: {exc.msg} at position {exc.pos}") from None
    except ValueError as exc:
        raise FieldError(name, f"not valid JSON: {exc}") from None


def _no_constant(name: str) -> Any:
    """JSON has no NaN or Infinity (Python's parser takes them): refused, never a number."""
    raise ValueError(f"{name} is not a JSON number (JSON has no NaN or Infinity)")


def loads(raw: str | bytes) -> Any:
    """Strict JSON: what `json.loads` takes, less NaN, Infinity and -Infinity."""
    return json.loads(raw, parse_constant=_no_constant)


async def read_json_object(
    request: Request, limit: int, field: str = "transcript", setting: str = TRANSCRIPT_LIMIT
) -> dict[str, Any]:
    """A JSON object body of at most `limit` bytes (413 past it, naming `field` and the
    `setting` that sets the limit; 422 when it is not one)."""
    body = await _read_body(request, limit, field, setting)
    try:
        data = loads(body)
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise FieldError("", f"malformed JSON body: {exc}", kind="json_invalid") from None
    if not isinstance(data, dict):
        raise FieldError("", "the JSON body must be an object", kind="json_invalid")
    return data


async def read_run_request(request: Request, settings: Settings) -> RunCreate:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    limit = settings.max_transcript_bytes + EXTRA_BODY_BYTES
    if ctype == "application/json":
        data = await read_json_object(request, limit)
    elif ctype == "multipart/form-data":
        _refuse_declared_oversize(request, limit)
        form = await request.form(max_files=1, max_fields=20)
        upload = form.get("transcript")
        if isinstance(upload, UploadFile):
            raw = await upload.read(settings.max_transcript_bytes + 1)
            try:  # a PDF, a Word file, a saved web page or text (core.documents)
                text = await asyncio.to_thread(
                    transcript_text, raw, upload.filename or "the uploaded file",
                    **settings.transcript_bounds(),
                )  # fmt: skip
            except TranscriptError as exc:
                raise transcript_refusal(exc) from None
        elif isinstance(upload, str):
            text = upload
        else:
            raise FieldError("transcript", "field required (a file or text)", kind="missing")
        data = {"transcript": text}
        for key in ("pipeline", "company", "ticker", "period", "call_date", "benchmark", "source"):
            value = form.get(key)
            if isinstance(value, str) and value:
                data[key] = value
        for key in ("financials", "prices", "options", "fetch"):
            value = form.get(key)
            parsed = _json_field(key, value if isinstance(value, str) else None)
            if parsed is not None:
                data[key] = parsed
    else:
        raise ApiError(
            415,
            f"unsupported content type {ctype or '(none)'!r}; send "
            "application/json or multipart/form-data",
        )
    try:
        return RunCreate.model_validate(data)
    except ValidationError as exc:
        raise BodyInvalid(validation_detail(exc)) from None


def transcript_refusal(exc: TranscriptError, where: tuple[str | int, ...] = ()) -> FieldError:
    """A transcript refused: 413 over the size bound, 422 otherwise (the line bound, empty,
    not text), the message naming the bound and its setting."""
    status = 413 if isinstance(exc, TranscriptTooLarge) else 422
    kind = "too_large" if status == 413 else "too_long" if isinstance(
        exc, TranscriptTooManyLines) else "value_error"  # fmt: skip
    return FieldError("transcript", str(exc), status=status, kind=kind, where=where)


def check_transcript(
    body: RunCreate, settings: Settings, where: tuple[str | int, ...] = ()
) -> Transcript:
    """The run's transcript parsed within the server's bounds (CPU-bound on a long call: the
    async intake runs it in a worker thread). `where`: the field's path in the body."""
    try:
        return parse_transcript(body.transcript, **settings.transcript_bounds())
    except TranscriptError as exc:
        raise transcript_refusal(exc, where) from None


def _call_date(body: RunCreate) -> date | None:
    """The body's call date, checked (a YYYY-MM-DD that is a date: 422 naming it otherwise)."""
    if not body.call_date:
        return None
    try:
        return date.fromisoformat(body.call_date)
    except ValueError:
        raise FieldError("call_date", f"{body.call_date!r} is not a date (YYYY-MM-DD)") from None


def _before_the_call(body: RunCreate) -> RunCreate:
    """A body's own statements and prices with nothing dated on or after its `call_date` (each
    cut said in the report); with no call date, nothing is cut and the report says the newest
    bar is the as-of date."""
    call_date = _call_date(body)
    if call_date is None or (body.financials is None and body.prices is None):
        return body
    try:
        financials, prices = before_the_call(body.financials, body.prices, call_date)
    except InputError as exc:
        raise FieldError("financials", str(exc)) from None
    except ValueError as exc:  # fewer than two bars left before the call
        raise FieldError("prices", f"before the call date {call_date}: {exc}") from None
    return body.model_copy(update={"financials": financials, "prices": prices})


async def fetch_market_data(body: RunCreate, settings: Settings) -> RunCreate:
    """`fetch`: the statements and prices the body lacks, from the chosen source (the body's
    `source`, else EDESK_MARKET_SOURCE; cached, spaced to the source's rate limit). Refused
    before any run exists: 422 naming the missing field or setting, 502 with the source's
    answer (naming ticker and endpoint, form or field)."""
    if not body.fetch:
        return _before_the_call(body)
    if not body.ticker:
        raise FieldError("ticker", "fetch needs the company's ticker")
    call_date = _call_date(body)
    if call_date is None:
        raise FieldError("call_date", "fetch needs the call's date (YYYY-MM-DD)")
    source = resolve_source(body.source, settings)
    if source == "alphavantage" and not settings.alphavantage_api_key:
        raise FieldError(
            "fetch",
            "this server has no Alpha Vantage key (EDESK_ALPHAVANTAGE_API_KEY): send "
            "`financials` and `prices`, or `source`: keyless",
        )
    if source == "keyless" and body.financials is None and not settings.sec_user_agent.strip():
        raise FieldError(
            "fetch",
            "this server has neither an Alpha Vantage key (EDESK_ALPHAVANTAGE_API_KEY) nor "
            "EDESK_SEC_USER_AGENT (SEC EDGAR's required contact, for keyless data): send "
            "`financials` and `prices` instead",
        )
    try:
        filled = await fill(
            settings, source, body.ticker, call_date, body.financials, body.prices, body.benchmark
        )
    except VendorError as exc:
        raise ApiError(502, f"market data: {exc}") from None
    log.info("fetched market data for %s: %s", body.ticker, filled.describe())
    return body.model_copy(update={"financials": filled.financials, "prices": filled.prices})
