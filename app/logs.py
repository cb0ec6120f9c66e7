"""Process logging: text lines, or JSON lines (`EDESK_LOG_FORMAT=json`) with the run id and
node of the task that logged, on every line.

No transcript, financials or report text reaches a log: request bodies are never logged, and
every line (message and traceback) passes `scrub`, which removes the inputs that validation
errors quote (pydantic's `input_value=...`, JSON decoders' documents)."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Literal

from core.logctx import node_var, run_id_var

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# pydantic quotes the offending input (up to ~50 characters of a transcript or report)
_INPUT_VALUE = re.compile(r"input_value=.*?(?=, input_type=|\]$)", re.MULTILINE)


# control characters (C0, DEL, C1) and bidirectional overrides: a decoded request path or a
# client's text must not move the terminal's cursor, forge a line or hide what follows
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROLS_AND_NEWLINES = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    return match[0].encode("unicode_escape").decode("ascii")


def scrub(text: str) -> str:
    """`text` without the input values validation errors quote, and with every control
    character escaped (`\\x1b`, `\\x00`), newlines (a traceback's) kept."""
    return _CONTROLS.sub(_escape, _INPUT_VALUE.sub("input_value=<redacted>", text))


def _one_line(record: logging.LogRecord) -> logging.LogRecord:
    """The record with its message on one line: a newline in a logged value (a request
    path, an exception message) is escaped, so one event is one line."""
    message = record.getMessage()
    safe = _CONTROLS_AND_NEWLINES.sub(_escape, message)
    if safe == message:
        return record
    copy = logging.makeLogRecord(record.__dict__)
    copy.msg, copy.args = safe, None
    return copy


class ScrubbingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(_one_line(record)))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return scrub(self._line(_one_line(record)))

    def _line(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "run_id": getattr(record, "run_id", None) or run_id_var.get(),
            "node": getattr(record, "node", None) or node_var.get(),
        }
        if record.exc_info:
            line["exc_type"] = record.exc_info[0].__name__ if record.exc_info[0] else None
            line["traceback"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure(level: str, fmt: Literal["text", "json"]) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else ScrubbingFormatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per Chroma/model request
