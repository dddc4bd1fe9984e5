"""What the agent reads up front: the managed block in its context file (``context_file``,
``render``), distilled rules (``distill``), pattern observations (``patterns``), health scores and the
project registry (``health``, ``projects``).

May import: ``twiceshy.base``, ``twiceshy.plugin``, ``twiceshy.memory``, ``twiceshy.learning``,
``twiceshy.recall``, ``twiceshy.brain``.
"""
