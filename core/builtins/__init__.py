"""Builtin behaviour, written as ordinary plugins (see twiceshy.plugin.manager.BUILTIN_PLUGINS)."""
