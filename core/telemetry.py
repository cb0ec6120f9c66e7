"""OpenTelemetry spans for runs and nodes (the API only; the SDK and the exporter are set up by
`app.telemetry` when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and otherwise every span is a no-op).
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.trace import Tracer, TracerProvider

_provider: TracerProvider | None = None


def use(provider: TracerProvider | None) -> None:
    """Spans go to `provider` (None: the global one, a no-op unless an SDK was installed)."""
    global _provider
    _provider = provider


def tracer() -> Tracer:
    if _provider is not None:
        return _provider.get_tracer("earnings_desk")
    return trace.get_tracer("earnings_desk")
