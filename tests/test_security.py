"""Security: a private socket, a token-guarded loopback TCP listener, and no
secret on any path to disk or to the model.

* Unix socket 0600 in a 0700 run dir; a fresh data dir is created 0700; the
  engine refuses a run dir that is a symlink or belongs to another user
  (root can create one with chown, so this is tested for real).
* TCP fallback: bound to 127.0.0.1 only (read back from /proc/net/tcp), the
  port file is 0600, a request with a wrong or missing token gets no answer
  and is never applied (the counting plugin sees nothing).
* Redaction end to end: secrets in a pre_tool command, a post_tool output, a
  prompt and a session transcript go through a real engine with a real
  (fake, local) model server; afterwards no byte of any secret is found in
  any file under the data dir — the Chroma store included — nor in any
  request the model server received.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import reliability_kit as kit
from llm_server import FakeLLMServer, llm_env
from twiceshy.engine import server as engine_mod
from twiceshy.hooks import wire


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[list[Path]]:
    made: list[Path] = []
    yield made
    for home in made:
        kit.kill_engines(home)


def test_socket_run_dir_and_data_dir_are_private(tmp_path: Path, homes: list[Path]) -> None:
    home = tmp_path / "fresh" / "tshome"  # does not exist: the first hook creates it
    homes.append(home)
    env = kit.env_for(home)
    out = kit.hook(home, "PreToolUse", kit.pre_tool_payload("s", "ls"), env)  # autostarts the engine
    assert (out.returncode, out.stdout) == (0, b"")
    assert kit.wait_for(lambda: engine_mod.call(home, "ping") is not None, timeout=120)
    paths = engine_mod.EnginePaths(home)
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(paths.run).st_mode) == 0o700
    st = os.stat(paths.socket)
    assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.getuid()
    for name in ("engine.lock", "engine.pid"):
        assert not stat.S_IMODE(os.stat(paths.run / name).st_mode) & 0o077 or name == "engine.pid"


@pytest.mark.parametrize("trap", ["symlink", "foreign-owner"])
def test_engine_refuses_a_run_dir_it_does_not_own(tmp_path: Path, homes: list[Path], trap: str) -> None:
    home = tmp_path / "tshome"
    homes.append(home)
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir()
    if trap == "symlink":
        (home / "run").symlink_to(elsewhere, target_is_directory=True)
    else:
        (home / "run").mkdir()
        os.chown(home / "run", 12345, 12345)  # as root: a dir another user owns
        os.chmod(home / "run", 0o777)
    out = subprocess.run(
        [kit.PY, "-m", "twiceshy", "serve", "--foreground", "--home", str(home)],
        env=kit.env_for(home),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(tmp_path),
    )
    assert out.returncode != 0
    assert "not a directory owned by this user" in out.stderr, out.stderr[-1500:]
    assert not list(elsewhere.iterdir()), "the engine wrote into a directory it does not own"


def _listening_addresses(port: int) -> list[str]:
    """Local addresses LISTENing on ``port`` (IPv4 and IPv6), from /proc/net."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            local, state = parts[1], parts[3]
            addr, _, hexport = local.partition(":")
            if state == "0A" and int(hexport, 16) == port:
                found.append(addr)
    return found


def test_tcp_fallback_is_loopback_only_and_needs_the_token(tmp_path: Path, homes: list[Path]) -> None:
    home = tmp_path / "tshome"
    homes.append(home)
    plugin = kit.make_counter_plugin(tmp_path / "plugin")
    count = tmp_path / "count.txt"
    env = kit.env_for(home, plugin, count, TWICESHY_ENGINE_TRANSPORT="tcp")
    proc = kit.spawn_engine(home, env)
    port_file = Path(wire.port_file(home))
    assert kit.wait_for(lambda: port_file.exists() and port_file.read_text().strip(), timeout=120), (
        home / "engine.log"
    ).read_text()
    assert stat.S_IMODE(port_file.stat().st_mode) == 0o600
    port, token = port_file.read_text().split()[:2]
    port_n = int(port)
    assert len(token) >= 32
    assert _listening_addresses(port_n) == ["0100007F"], _listening_addresses(port_n)  # 127.0.0.1 only

    def ask(tok: str, event: str = "ping", agent: str = "-", payload: bytes = b"") -> bytes:
        s = socket.create_connection(("127.0.0.1", port_n), timeout=20)
        try:
            s.sendall(f"TS1 {agent} {event} t1 {len(payload)} {tok}\n".encode() + payload)
            s.shutdown(socket.SHUT_WR)
            data = b""
            while chunk := s.recv(65536):
                data += chunk
            return data
        finally:
            s.close()

    def ready() -> bool:
        reply = wire.parse_reply(ask(token))
        return reply is not None and json.loads(reply[1] or b"{}").get("ready") is True

    # A loading engine answers hook events "not ready" at once (the client then spools them itself).
    assert kit.wait_for(ready, timeout=60)
    assert ask("-") == b""
    assert ask(token[:-1] + ("0" if token[-1] != "0" else "1")) == b""
    bad_event = json.dumps(kit.post_tool_payload("tcp", "echo sneaky", 1)).encode()
    assert ask("wrong-token", "PostToolUse", "claude-code", bad_event) == b""
    good_event = json.dumps(kit.post_tool_payload("tcp", "echo legit", 2)).encode()
    assert wire.parse_reply(ask(token, "PostToolUse", "claude-code", good_event)) is not None
    assert kit.wait_for(lambda: ("tcp", "echo legit") in kit.counted(count), timeout=60)
    time.sleep(0.5)
    assert ("tcp", "echo sneaky") not in kit.counted(count), "an event without the token was applied"
    # The real client finds the port and token by itself.
    out = kit.hook(home, "PreToolUse", kit.pre_tool_payload("tcp", "ls"), env)
    assert out.returncode == 0
    kit.stop_engine(home, proc)


# ---------------------------------------------------------------------------
# Redaction on every path to disk and to the model
# ---------------------------------------------------------------------------

SECRETS = {
    "openai": "sk-proj-Zx81mQpL0vT7bNc4Rw2YhK9sJd3FgA6e",
    "aws_id": "AKIAZ7Q4M2X9W3N8V5TB",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq3mT8vLeK",
    "github": "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnlyAbCdEf",
    "password": "Hunter2-Correct-Horse-9a7",
}


def _transcript(path: Path) -> Path:
    lines = [
        {"type": "user", "message": {"role": "user", "content": f"deploy it; the db password is postgres://admin:{SECRETS['password']}@db/prod"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "tu1", "name": "Bash", "input": {"command": f"AWS_SECRET_ACCESS_KEY={SECRETS['aws_secret']} aws s3 ls"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu1", "is_error": True, "content": f"error: bad token {SECRETS['github']}"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "tu2", "name": "Bash", "input": {"command": f"aws --profile prod s3 ls # key {SECRETS['aws_id']}"}}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu2", "content": "bucket-a"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text":
            f"LEARNING: export OPENAI_API_KEY={SECRETS['openai']} before running the eval script, and use the prod profile"}]}},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def _find_secrets(root: Path) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            try:
                data = path.read_bytes()
            except OSError:
                continue
            for name, value in SECRETS.items():
                if value.encode() in data:
                    hits.append(f"{name} in {path.relative_to(root)}")
    return hits


def test_no_secret_reaches_disk_or_the_model(tmp_path: Path, homes: list[Path]) -> None:
    home = tmp_path / "tshome"
    home.mkdir(exist_ok=True)
    homes.append(home)

    def answer(body: dict[str, Any]) -> str:
        text = json.dumps(body)
        return "1" if "Which of these lessons" in text else "FOLLOWED"

    with FakeLLMServer([("answer", answer)]) as server:
        env = kit.env_for(home, **llm_env(server))
        kit.seed_lessons(
            home,
            env,
            [
                ("aws s3 ls needs --profile prod here", "aws s3 ls"),
                ("export keys via direnv, not inline", "export OPENAI_API_KEY"),
            ],
        )
        proc = kit.start_engine(home, env)
        cwd = str(tmp_path)
        sid = "secret-session"
        calls = [
            ("UserPromptSubmit", {"session_id": sid, "cwd": cwd, "hook_event_name": "UserPromptSubmit",
                                  "prompt": f"use token {SECRETS['github']} and password={SECRETS['password']}"}),
            ("PreToolUse", kit.pre_tool_payload(sid, f"AWS_SECRET_ACCESS_KEY={SECRETS['aws_secret']} aws s3 ls", cwd)),
            ("PostToolUse", {**kit.post_tool_payload(sid, f"aws s3 ls --key {SECRETS['aws_id']}", 1),
                             "tool_response": {"stdout": f"Authorization: Bearer {SECRETS['openai']}", "stderr": ""}}),
            ("PreToolUse", kit.pre_tool_payload(sid, f"export OPENAI_API_KEY={SECRETS['openai']}", cwd)),
            ("PostToolUse", {**kit.post_tool_payload(sid, f"export OPENAI_API_KEY={SECRETS['openai']}", 2), "cwd": cwd}),
            ("SessionEnd", {"session_id": sid, "cwd": cwd, "hook_event_name": "SessionEnd", "reason": "exit",
                            "transcript_path": str(_transcript(tmp_path / "transcript.jsonl"))}),
        ]  # fmt: skip
        for event, payload in calls:
            out = kit.hook(home, event, payload, env, budget_ms=5000)
            assert out.returncode == 0, out.stderr
        # The relevance filter asks the model only once litellm is warm (it
        # warms up in the background on the first call): repeat until it asks.
        n = 0
        while not server.raw_bodies and n < 60:
            n += 1
            kit.hook(
                home,
                "PreToolUse",
                kit.pre_tool_payload(f"{sid}-{n}", f"AWS_SECRET_ACCESS_KEY={SECRETS['aws_secret']} aws s3 ls", cwd),
                env,
                budget_ms=5000,
            )
            time.sleep(0.5)
        engine_mod.call(home, "drain")
        assert kit.wait_for(lambda: kit.spool_pending(home) == 0, timeout=120)
        time.sleep(3.0)  # judge worker and hit counting run in the background
        kit.stop_engine(home, proc)
        bodies = b"\n".join(server.raw_bodies)
    leaked_to_model = [name for name, value in SECRETS.items() if value.encode() in bodies]
    assert server.raw_bodies, "the model was never asked: this test did not exercise that path"
    assert not leaked_to_model, f"secrets sent to the model: {leaked_to_model}"
    stored = _store_texts(home, env)
    assert any("OPENAI_API_KEY" in t for t in stored), f"the session's lesson was not learned: {stored}"
    leaks = _find_secrets(home)
    assert not leaks, f"secrets written under the data dir: {leaks}"
    print(
        f"\nredaction: {len(server.raw_bodies)} model requests and {sum(1 for p in home.rglob('*') if p.is_file())} files under the data dir, no secret in any"
    )


def _store_texts(home: Path, env: dict[str, str]) -> list[str]:
    code = "import json\nfrom twiceshy.engine.context import make_context\nprint(json.dumps([e.text for e in make_context(None).store.all()]))\n"
    out = subprocess.run(
        [kit.PY, "-c", code], env=env, capture_output=True, text=True, timeout=180, cwd=str(home.parent)
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------
# Modes from the first command, symlinks written through, markers escaped.
# ---------------------------------------------------------------------------


def _modes_under(root: Path) -> list[tuple[str, str]]:
    """Every path under ``root`` whose mode lets anyone but the owner in."""
    loose = []
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(folder, name)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode) or stat.S_ISSOCK(st.st_mode):
                continue
            want = 0o700 if stat.S_ISDIR(st.st_mode) else 0o600
            if stat.S_IMODE(st.st_mode) != want:
                loose.append((p, oct(stat.S_IMODE(st.st_mode))))
    return loose


@pytest.mark.parametrize(
    "first",
    [["learn", "Never force-push to main; open a PR", "--trigger", "git push --force origin main"], ["list"]],
    ids=["learn", "list"],
)
def test_data_dir_is_private_when_the_first_command_is_a_cli_one(tmp_path: Path, first: list[str]) -> None:
    home = tmp_path / "new" / "tshome"  # missing, parents too
    if first == ["list"]:  # list refuses a missing TWICESHY_HOME (a typo guard): give it an empty one
        home.mkdir(parents=True, mode=0o700)
    env = {**kit.env_for(home), "TWICESHY_EMBEDDING__BACKEND": "hash"}
    out = subprocess.run(
        ["sh", "-c", 'umask 022 && exec "$@"', "sh", kit.PY, "-m", "twiceshy", *first],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=str(tmp_path),
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    assert (home / "store" / "chroma.sqlite3").is_file()
    assert _modes_under(home) == []


def test_an_old_world_readable_store_is_tightened_on_open(tmp_path: Path) -> None:
    from twiceshy.memory.store import open_client

    path = tmp_path / "store"
    open_client("embedded", path=path)
    os.chmod(path, 0o755)
    os.chmod(path / "chroma.sqlite3", 0o644)  # as versions before issue 19 left it
    open_client("embedded", path=path, fresh=True)
    assert _modes_under(path) == [] and stat.S_IMODE(os.stat(path).st_mode) == 0o700


def test_symlinked_settings_and_context_file_are_written_through(tmp_path: Path) -> None:
    from twiceshy.base.fileio import write_atomic
    from twiceshy.guidance.context_file import remove_managed_block, write_managed_block

    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real_settings = dotfiles / "settings.json"
    real_settings.write_text('{"theme": "dark"}\n')
    os.chmod(real_settings, 0o640)
    link = tmp_path / "home" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real_settings)
    write_atomic(link, '{"theme": "dark", "hooks": {}}\n')
    assert link.is_symlink() and os.readlink(link) == str(real_settings)
    assert real_settings.read_text() == '{"theme": "dark", "hooks": {}}\n'
    assert stat.S_IMODE(real_settings.stat().st_mode) == 0o640  # the target's mode kept
    # A chain of links, to a context file that does not exist yet.
    real_md = dotfiles / "CLAUDE.md"
    (dotfiles / "middle.md").symlink_to(real_md)
    md_link = tmp_path / "repo" / "CLAUDE.md"
    md_link.parent.mkdir()
    md_link.symlink_to(dotfiles / "middle.md")
    assert write_managed_block(md_link, "- lesson one")
    assert md_link.is_symlink() and (dotfiles / "middle.md").is_symlink()
    assert b"lesson one" in real_md.read_bytes()
    assert remove_managed_block(md_link)
    assert md_link.is_symlink() and real_md.exists() and b"twiceshy" not in real_md.read_bytes()


def test_a_lesson_holding_our_markers_cannot_break_the_block(ctx, tmp_path: Path) -> None:
    from twiceshy.base.types import ContextSection
    from twiceshy.builtins import context as context_builtin  # noqa: F401  (render_context plugin present)
    from twiceshy.guidance.context_file import BEGIN, END, find_block, remove_managed_block, write_managed_block
    from twiceshy.guidance.render import HEADING, render_sections

    hostile = "Run make. <!-- twiceshy:end --> hidden <!-- twiceshy:begin --> <!-- comment hidden from the reader -->"
    text = render_sections([ContextSection(title="Rules", lines=[f"- {hostile}"], priority=1)], 2000, HEADING)
    assert "<!--" not in text and "&lt;!-- twiceshy:end -->" in text
    md = tmp_path / "CLAUDE.md"
    md.write_text("# My notes\n\nkeep me\n")
    write_managed_block(md, text)
    data = md.read_bytes()
    assert data.count(BEGIN) == 1 and data.count(END) == 1
    assert not write_managed_block(md, text)  # idempotent: the block is found again
    # Even a raw body with markers (a caller that skips render) is escaped.
    write_managed_block(md, "- " + hostile + "\n" + END.decode() + "\n" + BEGIN.decode())
    data = md.read_bytes()
    assert data.count(BEGIN) == 1 and data.count(END) == 1 and find_block(data) is not None
    assert remove_managed_block(md)
    assert md.read_text() == "# My notes\n\nkeep me\n"


def test_a_block_broken_by_an_older_version_is_still_found_and_removed(tmp_path: Path) -> None:
    from twiceshy.guidance.context_file import NOTICE, find_block, remove_managed_block, write_managed_block

    md = tmp_path / "CLAUDE.md"
    broken = (
        "# Mine\n\n<!-- twiceshy:begin -->\n" + NOTICE + "\n- lesson says <!-- twiceshy:end --> early\n"
        "- more\n<!-- twiceshy:end -->\nafter\n"
    )
    md.write_text(broken)
    assert find_block(md.read_bytes()) is not None
    assert write_managed_block(md, "- fresh")  # healed in place
    assert md.read_text().count("twiceshy:end") == 1 and md.read_text().endswith("after\n")
    md.write_text(broken)
    assert remove_managed_block(md)
    assert md.read_text() == "# Mine\n\nafter\n"


@pytest.mark.parametrize("damage", ["random-bytes", "foreign-sqlite", "bad-page", "truncated"])
def test_doctor_names_a_damaged_store_file_and_leaves_it_alone(tmp_path: Path, damage: str) -> None:
    import hashlib
    import sqlite3

    home = tmp_path / "tshome"
    env = {**kit.env_for(home), "TWICESHY_EMBEDDING__BACKEND": "hash", "TWICESHY_NO_AUTOSTART": "1"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [kit.PY, "-m", "twiceshy", *args], env=env, capture_output=True, text=True, timeout=180, cwd=str(tmp_path)
        )

    assert run("learn", "Never force-push to main", "--trigger", "git push --force origin main").returncode == 0
    db = home / "store" / "chroma.sqlite3"
    if damage == "random-bytes":
        db.write_bytes(os.urandom(64 * 1024))
    elif damage == "foreign-sqlite":
        db.unlink()
        con = sqlite3.connect(db)
        con.execute("create table notes(body text)")
        con.commit()
        con.close()
    elif damage == "bad-page":
        with open(db, "r+b") as handle:
            handle.seek(4096 * 2)
            handle.write(b"\xff" * 4096)
    else:
        os.truncate(db, db.stat().st_size // 3)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    out = run("doctor", "--json")
    assert "Traceback" not in out.stderr and "panicked" not in out.stderr, out.stderr[-2000:]
    store = next(c for c in json.loads(out.stdout)["checks"] if c["name"] == "store")
    assert store["level"] == "fail" and str(db.parent) in store["detail"], store
    assert "restore" in store["fix"]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest  # doctor did not migrate or "repair" it


def test_doctor_says_when_the_spool_is_full(tmp_path: Path) -> None:
    from twiceshy.hooks.wire import MAX_SPOOL_BYTES, spool_path

    home = tmp_path / "tshome"
    env = {**kit.env_for(home), "TWICESHY_EMBEDDING__BACKEND": "hash", "TWICESHY_NO_AUTOSTART": "1"}
    spool = Path(spool_path(home))
    spool.parent.mkdir(parents=True, exist_ok=True)
    with open(spool, "wb") as handle:  # one real record, then a sparse tail up to the cap
        handle.write(b'{"id":"x","ts":0,"agent":"claude-code","event":"PostToolUse","payload":{}}\n')
    os.truncate(spool, MAX_SPOOL_BYTES)
    out = subprocess.run(
        [kit.PY, "-m", "twiceshy", "doctor", "--json"], env=env, capture_output=True, text=True, timeout=180
    )
    queues = next(c for c in json.loads(out.stdout)["checks"] if c["name"] == "queues")
    assert queues["level"] == "fail" and "spool is full" in queues["detail"] and "dropped" in queues["detail"]
    assert queues["data"]["spool_cap_bytes"] == MAX_SPOOL_BYTES
    wide = {**env, "COLUMNS": "300"}
    stats = subprocess.run([kit.PY, "-m", "twiceshy", "stats"], env=wide, capture_output=True, text=True, timeout=180)
    assert "FULL: new events are dropped" in stats.stdout, stats.stdout[-3000:] + stats.stderr[-2000:]
    raw = subprocess.run(
        [kit.PY, "-m", "twiceshy", "stats", "--json"], env=env, capture_output=True, text=True, timeout=180
    )
    assert json.loads(raw.stdout)["hooks"]["spool"]["full"] is True


def test_forget_says_the_text_stays_on_disk_and_the_documented_erase_works(tmp_path: Path) -> None:
    home = tmp_path / "tshome"
    env = {**kit.env_for(home), "TWICESHY_EMBEDDING__BACKEND": "hash", "TWICESHY_NO_AUTOSTART": "1"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        out = subprocess.run(
            [kit.PY, "-m", "twiceshy", *args], env=env, capture_output=True, text=True, timeout=180, cwd=str(tmp_path)
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return out

    def on_disk(word: bytes) -> bool:
        return any(word in p.read_bytes() for p in (home / "store").rglob("*") if p.is_file())

    run("learn", "Zebracanary lesson to forget", "--trigger", "zebracanary run")
    run("learn", "Keep the npm ci lesson", "--trigger", "npm install")
    exp_id = next(e["id"] for e in json.loads(run("list", "--json").stdout) if "Zebracanary" in e["text"])
    out = run("forget", exp_id)
    assert "can stay in the store's files" in out.stderr
    assert on_disk(b"Zebracanary")  # what the note warns about (Chroma's write-ahead log)
    export = tmp_path / "keep.json"
    run("export", "--all", "--include-superseded", "-o", str(export))
    (home / "store").rename(tmp_path / "old-store")
    run("import", str(export))
    assert not on_disk(b"Zebracanary") and on_disk(b"npm ci")
