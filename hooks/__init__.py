"""Scripts the agents invoke. `client.py` is stdlib-only and runs with `python -I -S`."""
