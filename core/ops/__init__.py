"""What a user runs: the ``twiceshy`` CLI (``cli``), install/uninstall of agent hooks
(``install``), ``doctor``, ``stats``, the dashboard (``ui``), export/import (``portable``) and the MCP
server (``mcp``).

May import: every package except ``builtins``.
"""
