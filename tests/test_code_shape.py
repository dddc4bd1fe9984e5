"""Taught code lessons hold the same mistake written with other names (``twiceshy.lesson.code_shape``),
through the signature the store keeps and the matcher the hook runs."""

from __future__ import annotations

import re

import pytest
from twiceshy.hooks.match import check
from twiceshy.lesson.code_shape import shape_pattern
from twiceshy.lesson.signature import derive_from_trigger


def _edit(path: str, new: str, old: str = "") -> tuple[str, dict]:
    return "Edit", {"file_path": path, "old_string": old, "new_string": new}


@pytest.mark.parametrize(
    ("trigger", "advice", "again", "fixed"),
    [
        (
            'if (order.getStatus() == "PAID")',
            'Kotlin/Java: never compare strings with ==; use "X".equals(v)',
            'if (account.tier() == "GOLD") {',
            'if ("GOLD".equals(account.tier())) {',
        ),
        (
            "self.limit - self.spent",
            "counters are unsigned: use checked_sub instead of a plain - (it panics on underflow)",
            "let left = self.quota_bytes - self.used_bytes;",
            "let left = self.quota_bytes.checked_sub(self.used_bytes);",
        ),
        (
            'level = String.to_atom(params["level"])',
            "never String.to_atom/1 on params; use String.to_existing_atom/1",
            'kind = String.to_atom(Map.fetch!(params, "kind"))',
            'kind = String.to_existing_atom(Map.fetch!(params, "kind"))',
        ),
    ],
)
def test_the_same_mistake_with_other_names_is_held_and_the_fix_passes(
    trigger: str, advice: str, again: str, fixed: str
) -> None:
    ext = {"==": "src/Billing.java", "-": "src/quota.rs"}.get(
        "==" if "==" in trigger else "-" if " - " in trigger else ""
    )
    path = ext or "lib/app/filters.ex"
    sig = derive_from_trigger(f"Edit {path}: {trigger}", advice)
    assert sig is not None and sig["kind"] == "edit", sig
    other = path.replace("/", "/other/", 1)
    assert check(sig, *_edit(other, again))[0], sig
    assert not check(sig, *_edit(other, fixed))[0], sig


def test_a_literal_the_advice_quotes_stays_and_either_quote_holds() -> None:
    found = shape_pattern(
        "lines = text.split('\\t')", "Rust: split on tabs with split('\\t') breaks on CRLF input; use lines()"
    )
    # The advice writes the literal itself, so it is part of the mistake.
    assert found is not None

    rx = re.compile(found[0])
    assert rx.search('cols.split("\\t")') and not rx.search("cols.split(',')")


def test_names_of_the_readers_own_code_are_not_anchors() -> None:
    # "total" is a word of the advice's prose and a name of the reader's: it anchors nothing.
    assert shape_pattern("total = total + 1", "keep the total in cents, not in floats") is None


def test_a_trigger_that_describes_an_order_gets_no_shape() -> None:
    assert shape_pattern("conn.close() before if err != nil", "check err before conn.close()") is None


def test_an_edit_that_replaces_one_occurrence_with_the_mistake_is_held() -> None:
    sig = derive_from_trigger(
        "Edit src/a.rs: text.split('\\n')", "Rust: use str::lines(), not split('\\n') (keeps \\r)"
    )
    assert sig is not None
    old = "let parts = body.split(';');\n"
    new = "let parts = body.split('\\n');\n"
    assert check(sig, *_edit("src/b.rs", new, old))[0], sig
    # Kept from the old text, not brought in: passes.
    assert not check(sig, *_edit("src/b.rs", new + "// done\n", new))[0], sig


def test_a_code_line_of_one_weak_language_hint_applies_to_any_file() -> None:
    sig = derive_from_trigger(
        "new Date(row.day)", "never new Date() on date-only strings (UTC midnight); parse with parseISO"
    )
    assert sig is not None and sig["glob"] == "", sig
    assert check(sig, *_edit("web/src/a.ts", "const d = new Date(x.day);\n"))[0]
