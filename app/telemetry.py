"""OpenTelemetry set-up: when the standard `OTEL_EXPORTER_OTLP_ENDPOINT` is set, spans (one per
run, one per node, one per HTTP request) are exported over OTLP/HTTP; otherwise nothing is set
up and spans cost nothing. `OTEL_SERVICE_NAME` names the service (default earnings-desk)."""

from __future__ import annotations

import os
from typing import Any

from core import telemetry


def enabled() -> bool:
    return bool(os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


def setup(exporter: Any = None) -> Any:
    """A tracer provider exporting to `exporter` (a span exporter; default OTLP over HTTP to the
    standard endpoint), used for every run and node span. Returns the provider."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    name = os.environ.get("OTEL_SERVICE_NAME", "earnings-desk")
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.use(provider)
    return provider


def instrument(app: Any, provider: Any) -> None:
    """A span per HTTP request (opentelemetry-instrumentation-fastapi)."""
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    FastAPIInstrumentor.instrument_app(app, tracer_provider=provider)
