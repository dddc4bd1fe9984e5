"""The resident engine and the one pipeline every hook call goes through: the server
(``server``), the dispatcher (``dispatch``), the exactly-once spool (``spool``) and the composition root
that builds the services handed to plugins (``context``).

May import: every package above it (``base``, ``plugin``, ``memory``, ``learning``, ``recall``, ``brain``,
``guidance``); never ``ops`` or ``builtins``.
"""
