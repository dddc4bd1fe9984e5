"""gemini plugin (not written yet)."""
