"""What a structured lesson is: the mistake, the fix, why, and the contrastive *signature* derived from
them (``signature``) — what a later call must carry, and must lack, to repeat the mistake.

Checking a call against a signature is ``twiceshy.hooks.match``: standard library only, so the hook
client can enforce rules by itself while the engine is cold. Learning derives signatures, recall checks
them, the rules snapshot copies them.

May import: ``twiceshy.base``, ``twiceshy.hooks``.
"""
