"""Per-agent plugins: each translates one agent's native hooks to core events and back."""
