"""One cached, rate-limited GET for the keyless sources (SEC EDGAR, Stooq): answers are kept
on disk with their fetch time and reused while younger than `max_age`; requests are spaced at
least `min_interval` seconds apart (callers queue on one lock, nothing goes out in a burst)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx


class VendorError(RuntimeError):
    """A market-data source refused or could not answer; the message names what was asked."""


class CachedGet:
    def __init__(
        self,
        name: str,
        cache_dir: Path,
        *,
        min_interval: float,
        max_age: timedelta = timedelta(days=1),
        headers: dict[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.name = name
        self.cache_dir = cache_dir
        self.min_interval = min_interval
        self.max_age = max_age
        self.headers = headers or {}
        self._client = client
        self._gate = asyncio.Lock()
        self._last = 0.0
        self.requests = 0  # sent (cache hits excluded)

    def _path(self, url: str) -> Path:
        return self.cache_dir / f"{hashlib.sha256(url.encode()).hexdigest()[:24]}.json"

    def fetched_at(self, url: str) -> datetime | None:
        """When the cached answer for `url` was fetched (None: not cached)."""
        path = self._path(url)
        if not path.is_file():
            return None
        return datetime.fromisoformat(json.loads(path.read_text(encoding="utf-8"))["fetched_at"])

    async def text(self, url: str, what: str) -> str | None:
        """The body at `url` (None on HTTP 404): from the cache while fresh, else fetched after
        waiting out the rate limit and cached with its fetch time. `what` names the request in
        errors."""
        path = self._path(url)
        if path.is_file():
            cached = json.loads(path.read_text(encoding="utf-8"))
            if datetime.now(UTC) - datetime.fromisoformat(cached["fetched_at"]) < self.max_age:
                kept = cached["body"]
                return None if kept is None else str(kept)
        async with self._gate:
            wait = self._last + self.min_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                resp = await self._get(url, what)
            finally:
                self._last = time.monotonic()
                self.requests += 1
        if resp.status_code == 404:
            body: str | None = None
        elif resp.status_code != 200:
            raise VendorError(f"{self.name} {what}: HTTP {resp.status_code}")
        else:
            body = resp.text
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        record = {"fetched_at": datetime.now(UTC).isoformat(), "url": url, "body": body}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        tmp.replace(path)
        return str(body) if body is not None else None

    async def json(self, url: str, what: str) -> object | None:
        body = await self.text(url, what)
        if body is None:
            return None
        try:
            parsed: object = json.loads(body)
        except ValueError:
            raise VendorError(f"{self.name} {what}: the answer is not JSON") from None
        return parsed

    async def _get(self, url: str, what: str) -> httpx.Response:
        client = self._client or httpx.AsyncClient(timeout=30.0, follow_redirects=True)
        try:
            return await client.get(url, headers=self.headers)
        except httpx.HTTPError as exc:
            raise VendorError(f"{self.name} {what}: {type(exc).__name__}") from None
        finally:
            if self._client is None:
                await client.aclose()
