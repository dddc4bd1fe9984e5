"""Which lessons apply to a tool call, and whether the agent followed them: the read-only classifier
(``readonly``), similarity candidates checked against each lesson's signature (``ranking``), how a
warning reaches the model before the call — a one-time hold, context, or nothing (``delivery``) — and the
judge that decides afterwards whether a warning was FOLLOWED, IGNORED or IRRELEVANT (``judge``).

May import: ``twiceshy.base``, ``twiceshy.hooks``, ``twiceshy.lesson``, ``twiceshy.memory``,
``twiceshy.brain``, ``twiceshy.learning``.
"""
