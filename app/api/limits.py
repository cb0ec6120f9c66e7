"""A cap on every request body: declared sizes past it are refused before reading, streamed
bodies as soon as they pass it (413, JSON naming the limit). The run intake has its own, smaller,
transcript-sized limit; this protects every other route (e.g. POST /v1/evals)."""

from __future__ import annotations

import json

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimit:
    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            size = int(declared)
            await _too_large(send, f"{size:,} bytes; the limit is {self.limit:,}")
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    # raised inside the app (FastAPI re-raises HTTPException from body reading)
                    raise HTTPException(413, _detail(f"over the {self.limit:,}-byte limit"))
            return message

        await self.app(scope, limited, send)


async def _too_large(send: Send, message: str) -> None:
    body = json.dumps({"detail": _detail(message)}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _detail(message: str) -> list[dict[str, object]]:
    """The FieldErrors shape the OpenAPI schema documents for 413."""
    return [{"loc": ["body"], "msg": f"request body is {message}", "type": "too_large"}]
