"""Builtin behaviour, written as ordinary plugins (see twiceshy.manager.BUILTIN_PLUGINS)."""
