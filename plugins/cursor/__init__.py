"""cursor plugin (not written yet)."""
