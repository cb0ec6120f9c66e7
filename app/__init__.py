"""The outside world: the HTTP API and the analyst page, the CLI, settings, run execution,
storage, model providers, evaluation and exports (see the README's Layout)."""
