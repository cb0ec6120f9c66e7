"""The outside world: settings, model factory, runner, CLI (and later the HTTP API)."""
