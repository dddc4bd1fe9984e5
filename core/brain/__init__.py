"""The optional language model, always fail-open (``llm``), and the judge that decides whether a
warning was FOLLOWED, IGNORED or IRRELEVANT (``judge``).

May import: ``twiceshy.base``, ``twiceshy.memory``, ``twiceshy.learning``. litellm is imported lazily.
"""
