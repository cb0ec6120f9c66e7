"""Run execution: the engine (compiled graphs, models, index), the run manager and executor,
run events, the event bus, the queue and the worker."""
