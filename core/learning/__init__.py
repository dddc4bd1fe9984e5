"""Turning sessions into lessons: extractors over transcripts (``extractors``), redaction,
dedup and storage of candidates (``ingest``), tiers and evolution (``evolve``), the poisoning guard
(``review``) and per-session trajectories (``trajectory``).

May import: ``twiceshy.base``, ``twiceshy.memory``.
"""
