"""Builtin behaviour, written as ordinary plugins and registered under stable names
(:data:`twiceshy.plugin.manager.BUILTIN_PLUGINS`), so each can be disabled in
``plugins.disabled`` like a third-party plugin.

On the hooks: ``recall`` (pre_tool), ``judge`` (post_tool, register_workers), ``extract``
(session_end), ``ingest`` and ``context-files`` (``session_end`` module: store_lessons,
session_learned), ``evolve`` (session_learned), ``context`` (render_context, session_start),
``team`` (register_workers); the rest add CLI commands (register_commands), ``plugins`` among
them (``twiceshy plugins``). This is the composition layer: it may import any package.
"""
