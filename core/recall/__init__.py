"""Deciding which lessons apply to a tool call: the read-only classifier (``readonly``) and
ranking/matching of stored lessons against an action (``ranking``).

May import: ``twiceshy.base``, ``twiceshy.memory``, ``twiceshy.brain``, ``twiceshy.learning``.
"""
