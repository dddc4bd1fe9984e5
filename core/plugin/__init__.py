"""The plugin system: every hookspec (``hookspecs``), the plugin manager that loads builtin and
third-party plugins and calls hooks the way pluggy does (``manager``), the per-implementation
isolation and trace it wraps every lifecycle hook in (``guard``), and the shared shape of agent
plugins (``agent``, ``payload``).

May import: ``twiceshy.base``.
"""
