"""The judgement corpus and harness for issue 16 (see harness.py and bench/judgement.py)."""
