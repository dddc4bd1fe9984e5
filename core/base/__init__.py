"""Foundations every other package may use: the core's types, configuration, paths, the error log,
redaction, atomic file writes and project fingerprints.

May import: the standard library and PyYAML/platformdirs only — never another twiceshy package.
"""
