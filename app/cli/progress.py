"""Live node-level progress for the terminal (rich): a table on a TTY, one line per event else."""

from __future__ import annotations

import time
from types import TracebackType

from pydantic import BaseModel
from rich.console import Console
from rich.live import Live
from rich.table import Table

from app.service.events import NodeFinished, NodeStarted, RunError, RunFinished, RunStarted

_STYLE = {
    "pending": "dim",
    "running": "yellow",
    "ok": "green",
    "degraded": "magenta",
    "error": "red",
}


class Progress:
    def __init__(self, console: Console, nodes: list[str], title: str) -> None:
        self.console = console
        self.title = title
        self.rows: dict[str, list[str]] = {n: ["pending", "", "", ""] for n in nodes}
        self.started: dict[str, float] = {}
        self.live: Live | None = None

    def _table(self) -> Table:
        table = Table(title=self.title, expand=True)
        for col, kw in (
            ("node", {}),
            ("status", {}),
            ("time", {"justify": "right"}),
            ("tokens", {"justify": "right"}),
            ("output", {"ratio": 1}),
        ):
            table.add_column(col, overflow="ellipsis", no_wrap=col == "output", **kw)
        for node, (status, secs, tokens, summary) in self.rows.items():
            if status == "running" and node in self.started:
                secs = f"{time.monotonic() - self.started[node]:.1f}s"
            table.add_row(node, f"[{_STYLE.get(status, '')}]{status}[/]", secs, tokens, summary)
        return table

    def __enter__(self) -> Progress:
        if self.console.is_terminal:
            self.live = Live(
                self._table(),
                console=self.console,
                refresh_per_second=4,
                get_renderable=self._table,
            )
            self.live.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.live is not None:
            self.live.__exit__(exc_type, exc, tb)

    def __call__(self, event: BaseModel) -> None:
        if isinstance(event, NodeStarted):
            self.started[event.node] = time.monotonic()
            self.rows.setdefault(event.node, ["", "", "", ""])[0] = "running"
            self._line(f"[yellow]>[/] {event.node}")
        elif isinstance(event, NodeFinished):
            secs = f"{(event.duration_ms or 0) / 1000:.1f}s"
            self.rows[event.node] = [event.outcome, secs, str(event.tokens or ""), event.summary]
            mark = "[green]✓[/]" if event.outcome == "ok" else f"[magenta]![/] ({event.outcome})"
            self._line(f"{mark} {event.node} ({secs}, {event.tokens} tokens) {event.summary[:100]}")
        elif isinstance(event, RunError):
            if event.node:
                self.rows.setdefault(event.node, ["", "", "", ""])[0] = "error"
                self.rows[event.node][3] = event.message
            self._line(f"[red]✗[/] {event.node or 'run'}: {event.message}")
        elif isinstance(event, RunStarted):
            self._line(f"run {event.run_id} started ({event.pipeline})")
        elif isinstance(event, RunFinished):
            self._line(f"run finished: {event.status}")

    def _line(self, text: str) -> None:
        if self.live is None:
            self.console.print(text, highlight=False)
