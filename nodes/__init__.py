"""Node functions grouped by role; each small, async, returning only the keys it changes."""
