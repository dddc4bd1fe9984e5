"""claude_code plugin (not written yet)."""
