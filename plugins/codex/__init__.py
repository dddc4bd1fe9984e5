"""codex plugin (not written yet)."""
