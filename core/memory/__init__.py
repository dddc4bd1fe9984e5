"""Where lessons live: the Chroma store of record (``store``), offline embeddings (``embedding``),
and the team store on a shared Chroma server with its outbox (``team``, ``outbox``).

May import: ``twiceshy.base``. Heavy libraries (chromadb, onnxruntime) are imported lazily.
"""
