"""The optional language model (``llm``): litellm configured in YAML, hard timeouts, always fail-open.
Recall uses it to filter, the judge to decide, learning to draft principles; with no model configured
nothing here touches the network.

May import: ``twiceshy.base``. litellm is imported lazily, never on the hook path.
"""
