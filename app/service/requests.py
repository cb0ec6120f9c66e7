"""One run, as the engine takes it: a typed request built once (by the service from the stored
input, by the CLI from its flags, by the eval harness per call) and read as it is. Its options
are resolved before it is made (the request's values over the `EDESK_` defaults, at intake);
the engine derives the run's brakes, word caps and token streaming from them alone."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Literal

from core.contract import CallInfo
from core.inputs import Financials, Prices
from core.memory import CompanyMemory
from core.options import RunOptions
from core.transcript import Transcript

# "sync": each step's checkpoint is written before the next starts (the service: a process
# killed mid-run resumes without re-running finished nodes); "async" overlaps the write with
# the next step (the CLI, which does not resume).
Durability = Literal["sync", "async", "exit"]


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class RunRequest:
    """Everything one run needs. `transcript` None resumes run `run_id` from its checkpoint.
    `keep_checkpoint`: the caller reads the final state before the checkpoints go (the
    service); otherwise a run that ended well or was cancelled deletes them at once."""

    pipeline: str
    transcript: Transcript | None
    options: RunOptions
    call: CallInfo = field(default_factory=CallInfo)
    financials: Financials | None = None
    prices: Prices | None = None
    run_id: str = field(default_factory=_new_id)
    durability: Durability = "async"
    keep_checkpoint: bool = False
    # the company's stored calls the run's track record reads (None: no track record)
    memory: CompanyMemory | None = None

    @property
    def resumed(self) -> bool:
        return self.transcript is None
