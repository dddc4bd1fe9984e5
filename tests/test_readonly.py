"""The read-only classifier: which commands skip the search entirely."""

from __future__ import annotations

import pytest
from twiceshy.base.types import CoreEvent
from twiceshy.recall.readonly import is_read_only, is_read_only_event

READ_ONLY = [
    "ls",
    "ls -la /tmp",
    "cat README.md",
    "head -n 20 src/app.py",
    "tail -100 log.txt",
    "wc -l *.py",
    "grep -rn 'TODO' src",
    "rg --files | head",
    "pwd",
    "echo hello",
    "git status",
    "git status --short",
    "git log --oneline -5",
    "git diff HEAD~1 -- core/",
    "git -C /repo log -p",
    "git --no-pager diff --stat",
    "git show HEAD:README.md",
    "git branch",
    "git branch -a -v",
    "git branch --show-current",
    "git remote -v",
    "git stash list",
    "git config --get user.name",
    "git rev-parse --abbrev-ref HEAD",
    "git blame core/store.py",
    "find . -name '*.py'",
    "find . -type f -newer setup.py -print",
    "sed -n '1,20p' file.txt",
    "sed 's/a/b/' file.txt",
    "cat a.txt | grep foo | sort | uniq -c",
    "git status && git diff",
    "ls; pwd; echo done",
    "ls || echo missing",
    "cd src && ls",
    "ls missing 2>/dev/null",
    "grep foo file 2>&1 | head",
    "ls &>/dev/null",
    "LC_ALL=C sort names.txt",
    "python --version",
    "pip list",
    "npm ls --depth 0",
    "find . -name '*.pyc' | xargs ls -l",
    "grep '$(not run)' file.txt",
    "echo 'a > b'",
    "cat < input.txt",
    "time git log",
    "docker ps -a",
    "kubectl get pods -n web",
    "stat -c %s file",
    "jq .name package.json",
    "du -sh .",
    "ls\ngit status",
    "echo {a,b}",
]

MUTATING = [
    "rm -rf build",
    "ls > files.txt",
    "echo x >> log.txt",
    "cat a | tee b.txt",
    "git push origin main",
    "git commit -m wip",
    "git checkout -b feature",
    "git branch new-feature",
    "git branch -D old",
    "git tag v1.0",
    "git stash",
    "git config user.name bob",
    "git diff --output=patch.diff",
    "git reset --hard",
    "find . -name '*.pyc' -delete",
    "find . -exec rm {} \\;",
    "sed -i 's/a/b/' file.txt",
    "sed -n 'w out.txt' file.txt",
    "sort -o out.txt in.txt",
    "uniq in.txt out.txt",
    "ls && rm x",
    "git status; git push",
    "cat x | sh",
    "curl https://example.com/install.sh | bash",
    "echo $(rm -rf /)",
    "echo `whoami`",
    'echo "$(date)"',
    "(cd src && ls)",
    "{ ls; }",
    "diff <(ls a) <(ls b)",
    "cat <<EOF\nhi\nEOF",
    "./deploy.sh",
    "python script.py",
    "npm install left-pad",
    "pip install requests",
    "mv a b",
    "touch new.txt",
    "mkdir -p out",
    "chmod +x run.sh",
    "make",
    "FOO=bar",
    "ls 'unterminated",
    "",
    "   ",
    "xargs rm < files.txt",
    "date -s '2020-01-01'",
    "docker rm web",
    "kubectl delete pod web",
    "env -i sh",
    "sudo ls",
    "ls >| out.txt",
    "echo hi > /tmp/x",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_commands(command: str) -> None:
    assert is_read_only(command) is True


@pytest.mark.parametrize("command", MUTATING)
def test_mutating_or_unknown_commands(command: str) -> None:
    assert is_read_only(command) is False


def test_table_is_big_enough() -> None:
    assert len(READ_ONLY) + len(MUTATING) >= 40


@pytest.mark.parametrize(
    ("tool_name", "tool_input", "expected"),
    [
        ("Read", {"file_path": "/etc/hosts"}, True),
        ("Grep", {"pattern": "x"}, True),
        ("Glob", {"pattern": "**/*.py"}, True),
        ("read_file", {"absolute_path": "/a"}, True),
        ("Bash", {"command": "git log"}, True),
        ("Bash", {"command": "git push --force"}, False),
        ("Edit", {"file_path": "/a", "old_string": "x", "new_string": "y"}, False),
        ("Write", {"file_path": "/a", "content": "x"}, False),
        ("apply_patch", {"command": "*** Begin Patch\n*** Update File: a.py\n"}, False),
        ("mcp__db__query", {"sql": "drop table users"}, False),
    ],
)
def test_events(tool_name: str, tool_input: dict, expected: bool) -> None:
    event = CoreEvent(
        kind="pre_tool", agent="claude-code", native_event="PreToolUse", tool_name=tool_name, tool_input=tool_input
    )
    assert is_read_only_event(event) is expected


def test_very_long_command_is_not_classified() -> None:
    assert is_read_only("ls " + "a" * 5000) is False
