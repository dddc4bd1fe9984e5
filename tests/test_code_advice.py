"""core/lesson/code_advice.py: a taught code lesson holds the edit that brings its mistake
back in any file of the language, and passes the advised form.

``twiceshy learn "<advice>" --trigger "Edit <path>: <code>"``: the trigger is one instance,
the advice says what is wrong in general. Made-up projects and names, not the corpus.
"""

from __future__ import annotations

import pytest
from twiceshy.hooks.match import matches
from twiceshy.lesson import code_advice
from twiceshy.lesson import signature as sg


def edit(sig: dict, path: str, new: str) -> bool:
    return matches(sig, "Edit", {"file_path": path, "old_string": "", "new_string": new})


@pytest.mark.parametrize(
    ("trigger", "advice", "repeats", "silent"),
    [
        (  # what the advice forbids, with its placeholder (ErrX) left open
            "Edit internal/db/users.go: if err == db.ErrNoRows {",
            "Go: our errors are wrapped; test them with errors.Is(err, db.ErrX), never err == db.ErrX.",
            [("internal/api/teams.go", "\tif err == db.ErrTimeout {\n\t\treturn nil\n\t}\n")],
            [("internal/api/teams.go", "\tif errors.Is(err, db.ErrTimeout) {\n\t\treturn nil\n\t}\n")],
        ),
        (  # a list of forbidden forms: each is the mistake
            "Edit app/models/plan.rb: expires_at < Time.now",
            "billing runs in the account's zone: use Time.current / Date.current, never Time.now / Date.today.",
            [("app/jobs/renew_job.rb", "  started = Date.today\n"), ("app/models/seat.rb", "  t = Time.now\n")],
            [("app/jobs/renew_job.rb", "  started = Date.current\n"), ("app/models/seat.rb", "  now = Time.current\n")],
        ),
        (  # the names the advice uses, in order, whatever stands between them
            "Edit src/main/java/shop/Price.java: return price.equals(BigDecimal.ONE);",
            "Java: never compare BigDecimal values with equals (scale counts); use compareTo(...) == 0.",
            [("src/main/java/shop/Fee.java", '        if (fee.equals(new BigDecimal("1.0"))) {\n')],
            [("src/main/java/shop/Fee.java", "        if (fee.compareTo(BigDecimal.ONE) == 0) {\n")],
        ),
        (  # an operator the advice forbids, with the shape around it, not the reader's names
            'Edit src/main/java/shop/Orders.java: if (order.state() == "OPEN") {',
            'Java: compare strings with .equals ("OPEN".equals(state)), never ==.',
            [("src/main/java/shop/Clients.java", '        if (c.kind() == "VIP") {\n')],
            [
                ("src/main/java/shop/Clients.java", '        if ("VIP".equals(c.kind())) {\n'),
                ("src/main/java/shop/Clients.java", "        if (c.count() != 0) {\n"),
            ],
        ),
        (  # a forbidden fragment in a parenthesis, single letters as placeholders
            "Edit src/title.rs: &title[..10]",
            "Rust: don't slice a &str by a byte length (&s[..n]); use s.chars().take(n).",
            [("src/label.rs", "    let p = &label[..4];\n")],
            [("src/label.rs", "    let p: String = label.chars().take(4).collect();\n")],
        ),
        (  # SQL keywords are the shape; the reader's tables and aliases are not
            "Edit sql/report.sql: WHERE u.id NOT IN (SELECT m.user_id FROM members m)",
            "SQL: never NOT IN (subquery) over a nullable column; use NOT EXISTS.",
            [("sql/other.sql", "  AND p.id NOT IN (SELECT x.pid FROM picks x)\n")],
            [
                ("sql/other.sql", "  AND p.state NOT IN ('a', 'b')\n"),
                ("sql/other.sql", "  AND NOT EXISTS (SELECT 1 FROM picks x WHERE x.pid = p.id)\n"),
            ],
        ),
        (  # an argument the advice asks for: an edit that has it is the fix
            "Edit tools/export.py: with open(path) as f:",
            'this box runs under LANG=C: always open text files with encoding="utf-8".',
            [("tools/load.py", "    with open(src) as fh:\n")],
            [("tools/load.py", '    with open(src, encoding="utf-8") as fh:\n')],
        ),
    ],
)
def test_a_taught_code_lesson_holds_its_mistake_anywhere_and_passes_the_advice(
    trigger: str, advice: str, repeats: list[tuple[str, str]], silent: list[tuple[str, str]]
) -> None:
    sig = sg.derive_from_trigger(trigger, advice)
    assert sig is not None and sig["kind"] == "edit"
    for path, new in repeats:
        assert edit(sig, path, new), (path, new, sig)
    for path, new in silent:
        assert not edit(sig, path, new), (path, new, sig)


def test_prose_is_never_a_forbidden_fragment() -> None:
    assert code_advice.forbidden_fragments("never float64 arithmetic on amounts") == []
    assert code_advice.forbidden_fragments("don't trust header/frame fields from the wire") == []
    assert code_advice.forbidden_fragments("never the naive datetime.utcnow()") == ["datetime.utcnow()"]


def test_the_advised_form_is_what_the_fix_adds() -> None:
    found = code_advice.derive(
        ["var due = invoices.Where(i => !i.Sent);"],
        "C#: materialise a LINQ query (ToList()) before mutating the items a deferred Where filters on.",
    )
    assert found is not None
    present, absent, _ = found
    assert any("ToList" in a for a in absent)
    assert "Where" in present
