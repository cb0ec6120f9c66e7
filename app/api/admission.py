"""Run intake, for every route that starts a run (`/v1/runs` and the LangGraph routes): a
validated body becomes a stored, queued run. The run's options are resolved here, once (the
request's values over the server's defaults, refused for a pipeline they do not apply to);
the transcript is checked within its bounds, market data fetched when asked, the quotas kept,
and only then is anything stored. Routes read and validate their own bodies; this module
knows no route."""

from __future__ import annotations

import asyncio
import uuid

from pydantic import ValidationError

from app.api.errors import BodyInvalid, validation_detail
from app.api.intake import check_transcript, fetch_market_data
from app.api.limits import check_quotas, check_thread_quota
from app.api.schemas import RunCreate
from app.service.runs import RunManager
from app.settings import Settings
from app.storage import RunInput, RunRecord, ThreadRecord, now
from core.options import RunOptions, inapplicable


def resolve_options(
    body: RunCreate, settings: Settings, at: tuple[str, ...] = ("options",)
) -> RunOptions:
    """The run's options, resolved once: the request's values over the server's defaults. An
    option for other pipelines only (`debate_rounds` for zero_shot) is a 422 naming it and the
    pipeline, as the CLI refuses its flag (`core.options.inapplicable`, one rule for both).
    `at`: where the options are in the body (`options`; the LangGraph routes' `context`)."""
    given = body.options.model_dump(exclude_none=True)
    refused = inapplicable(body.pipeline, given)
    if refused:
        raise BodyInvalid([
            {"loc": ["body", *at, name], "type": "not_applicable",
             "msg": f"applies to pipeline {' or '.join(only)} only, not {body.pipeline}"}
            for name, only in refused.items()
        ])  # fmt: skip
    try:
        return settings.run_defaults().merged(given)
    except ValidationError as exc:
        raise BodyInvalid(validation_detail(exc, prefix=("body", *at))) from None


async def admit(
    body: RunCreate,
    manager: RunManager,
    owner: str | None,
    settings: Settings,
    lock: asyncio.Lock,
    *,
    thread_id: str | None = None,
    new_thread: ThreadRecord | None = None,
    where: tuple[str, ...] = (),
    options_at: tuple[str, ...] = ("options",),
) -> RunRecord:
    """A validated body becomes a stored, queued run, within the quotas and the transcript's
    bounds (every intake: the `/v1` API's and the LangGraph routes', whose call fields are
    under `where` and options under `options_at`). Everything is checked before anything is
    stored: the thread a run makes (`new_thread`) is stored with the run, or not at all.
    `lock`: the app's intake lock, so one process's checks and inserts go in turn."""
    options = resolve_options(body, settings, options_at)  # cheap: before the transcript
    # parsing is CPU-bound on a long call: in a worker thread, so the API keeps answering
    await asyncio.to_thread(check_transcript, body, settings, where)
    body = await fetch_market_data(body, settings)  # outside the lock: it may wait on the vendor
    record = run_record(body, options, owner, thread_id)
    async with lock:  # a burst cannot slip through the quotas
        await check_quotas(manager.store, owner, settings)
        made = new_thread is not None and (
            await manager.store.get_thread(owner, new_thread.id) is None  # made meanwhile?
        )
        if made and new_thread is not None:
            await check_thread_quota(manager.store, owner, settings)
            await manager.store.create_thread(new_thread)
        try:
            await manager.submit(record)
        except BaseException:
            if made and new_thread is not None:
                await manager.store.delete_thread(owner, new_thread.id)
            raise
        return record


def run_record(
    body: RunCreate, options: RunOptions, owner: str | None, thread_id: str | None
) -> RunRecord:
    """The run as stored before it starts: its input typed (resolved options, financials and
    prices as the body's models), read back as it is by the executor."""
    return RunRecord(
        id=uuid.uuid4().hex,
        pipeline=body.pipeline,
        status="queued",
        owner=owner,
        thread_id=thread_id,
        created_at=now(),
        input=RunInput(
            transcript=body.transcript,
            call=body.call,
            options=options,
            financials=body.financials,
            prices=body.prices,
        ),
    )
