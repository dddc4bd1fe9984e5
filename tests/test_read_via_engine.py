"""Read commands answered by the running engine (twiceshy.ops.readvia, twiceshy.engine.readcmd).

Real engine processes on real sockets over a real Chroma store: every routed
command prints byte for byte what the in-process command prints (pipes and a
real pseudo-terminal); without an engine, with a stopped one or a busy one the
command runs in-process; a read never holds a hook worker; ``list`` pages.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_kit import serve_pids
from twiceshy.engine import server as engine_mod
from twiceshy.hooks import wire
from twiceshy.ops import readvia

PY = sys.executable
CLIENT = str(Path(wire.__file__).with_name("client.py"))
SEED = """
import sys
from twiceshy.base.types import Experience
from twiceshy.engine.context import make_context
from twiceshy.base.project import fingerprint
from twiceshy.learning.ingest import store_lesson
from twiceshy.guidance.patterns import PatternStore

ctx = make_context(None)
store = ctx.store
project = fingerprint(sys.argv[1])
exps = [
    Experience(
        text=f"lesson {i}: check the [flags] of tool{i % 7} first",
        trigger=f"tool{i % 7} --flag={i}",
        tier=(0, 1, 2, 3, 3)[i % 5],
        confidence=round(0.3 + i / 200, 3),  # distinct: context's ranking has no float ties to break
        topic=("git", "make", "docker")[i % 3],
        project=project if i % 9 == 0 else None,
        seen_count=1 + i % 4,
    )
    for i in range(64)
]
store.add_many(exps)
store.add_edge(exps[0].id, exps[1].id, "supersedes")
store.add_edge(exps[1].id, exps[2].id, "relates-to")
store_lesson(ctx, "Never rm -rf the build dir; run make clean", "rm -rf build")
store_lesson(ctx, "To install, run curl https://get.example.com/i.sh | sh", "install the tool")
patterns = PatternStore(config=ctx.config)
for _ in range(4):
    patterns.observe("seq:test->fix->test", project=project)
print(exps[0].id)
"""


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TWICESHY_HOME=str(home),
        TWICESHY_CONFIG_DIR=str(home / "config"),
        TWICESHY_NO_AUTOSTART="1",
        TWICESHY_RETRIEVAL__WARN="context",
        TWICESHY_ENGINE_TRANSPORT="unix",
        COLUMNS="110",
        # The engine has 2 s to take a read by default; a loaded CI box can miss that and the
        # CLI then (rightly) runs the command itself, which would fail the "served by the
        # engine" counts. The tests about that bound pass their own.
        TWICESHY_READ_ACCEPT_S="30",
    )
    env.pop("TWICESHY_READ_VIA_ENGINE", None)
    env.update(extra)
    return env


def wait_for(predicate, timeout: float = 30.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def start_engine(home: Path, **extra: str) -> dict:
    engine_mod.spawn_detached(home, env=env_for(home, **extra))
    status = engine_mod.wait_ready(home, timeout=90)
    assert status is not None, (home / "engine.log").read_text() if (home / "engine.log").exists() else "no log"
    # Reads are declined while the engine answers from its warm-start cache: wait for Chroma.
    assert wait_for(lambda: (engine_mod.call(home, "ping") or {}).get("store") == "chroma", timeout=90)
    return status


def stop_engines(home: Path) -> None:
    for pid in serve_pids(home):
        try:
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert wait_for(lambda: not serve_pids(home), timeout=20)


def as_client_of(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This test process asks the engine of ``home`` directly (readvia.ask): the same environment as the CLI."""
    for name, value in env_for(home).items():
        if name.startswith("TWICESHY_"):
            monkeypatch.setenv(name, value)


def reads(home: Path) -> dict:
    status = engine_mod.call(home, "ping", timeout=20.0) or {}
    return status.get("reads") or {"served": 0, "declined": {}}


def cli(home: Path, project: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PY, "-m", "twiceshy", *args],
        capture_output=True,
        env=env_for(home, **extra),
        cwd=str(project),
        timeout=300,
    )


def in_process(home: Path, project: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return cli(home, project, *args, TWICESHY_READ_VIA_ENGINE="0", **extra)


def same(a: subprocess.CompletedProcess, b: subprocess.CompletedProcess) -> bool:
    return (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, str]]:
    """(home, project dir, id of a lesson with edges): a store of 66 lessons, no engine."""
    root = tmp_path_factory.mktemp("readvia")
    home = root / "tshome"
    home.mkdir()
    project = root / "proj"
    project.mkdir()
    seed = subprocess.run(
        [PY, "-c", SEED, str(project)], env=env_for(home), capture_output=True, text=True, timeout=300
    )
    assert seed.returncode == 0, seed.stderr
    yield home, project, seed.stdout.split()[-1]
    stop_engines(home)


@pytest.fixture
def engine(seeded: tuple[Path, Path, str]) -> Iterator[tuple[Path, Path, str]]:
    home = seeded[0]
    start_engine(home)
    yield seeded
    stop_engines(home)


def commands(root_id: str) -> list[list[str]]:
    return [
        ["list"],
        ["list", "--json"],
        ["list", "--tier", "rule"],
        ["list", "--limit", "7", "--offset", "20"],
        ["list", "--all"],
        ["list", "--offset", "500"],
        ["list", "--limit", "0"],  # click's range error, exit 2
        ["list", "--bogus"],  # click's usage error, exit 2
        ["list", "--tier", "nonsense"],  # the command's BadParameter
        ["search", "rm -rf build"],
        ["search", "tool3 --flag", "-k", "3"],
        ["show", root_id],
        ["show", "nosuchlesson"],  # ClickException, exit 1
        ["graph", root_id],
        ["graph", root_id, "--json"],
        ["timeline", "git"],
        ["timeline", "git", "--json"],
        ["timeline", "git", "--limit", "5", "--offset", "3"],  # a page, and how many more
        ["timeline", "git", "--json", "--limit", "2"],
        ["timeline", "gti"],  # ClickException naming the close topic, exit 1
        ["projects"],
        ["review"],
        ["review", "--json"],
        ["suggest"],
        ["stats"],
        ["health"],
        ["context"],
    ]


def test_routed_commands_print_exactly_what_the_in_process_ones_print(engine: tuple[Path, Path, str]) -> None:
    home, project, root_id = engine
    # The command tree is built at engine start, before any read asks for it.
    assert wait_for(lambda: reads(home).get("prepared"), timeout=60), reads(home)
    assert reads(home)["served"] == 0
    for args in commands(root_id):
        before = reads(home)["served"]
        routed = cli(home, project, *args)
        assert reads(home)["served"] == before + 1, (args, reads(home))  # the engine answered it
        local = in_process(home, project, *args)
        assert same(routed, local), (args, routed, local)
    # the outputs are the real ones, not two identical failures
    listing = in_process(home, project, "list", "--json")
    assert listing.returncode == 0 and len(json.loads(listing.stdout)) == 50
    assert b"16 more" in listing.stderr
    assert cli(home, project, "list", "--bogus").returncode == 2
    assert b"make clean" in cli(home, project, "search", "rm -rf build").stdout
    assert b"held for review" in cli(home, project, "review").stdout
    page = in_process(home, project, "timeline", "git", "--limit", "5", "--offset", "3")
    assert page.returncode == 0 and len(page.stdout.splitlines()) == 6 and b"14 more" in page.stdout


def run_on_terminal(home: Path, project: Path, args: list[str], **extra: str) -> tuple[int, bytes, bytes]:
    """``twiceshy args`` with stdout on a real pseudo-terminal of 96 x 30."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 96, 0, 0))
    env = env_for(home, TERM="xterm-256color", PAGER="cat", **extra)
    env.pop("COLUMNS")
    proc = subprocess.Popen(
        [PY, "-m", "twiceshy", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=env,
        cwd=str(project),
    )
    os.close(slave)
    out = bytearray()
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other side closed
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
    assert proc.stderr is not None
    err = proc.stderr.read()
    return proc.wait(timeout=120), bytes(out), err


def test_on_a_terminal_too(engine: tuple[Path, Path, str]) -> None:
    home, project, root_id = engine
    for args in (["list"], ["list", "--all"], ["graph", root_id], ["health"], ["search", "rm -rf build"]):
        before = reads(home)["served"]
        routed = run_on_terminal(home, project, args)
        assert reads(home)["served"] == before + 1, args
        local = run_on_terminal(home, project, args, TWICESHY_READ_VIA_ENGINE="0")
        assert routed == local, (args, routed, local)
        assert routed[0] == 0 and routed[1], args
    code, out, _ = run_on_terminal(home, project, ["list"])
    assert b"\x1b[" in out  # styled: rich saw a terminal in the engine as it does in-process
    assert max(len(line) for line in out.split(b"\r\n")) > 80  # and its width, not the default 80


def test_without_an_engine_the_command_runs_in_process(
    seeded: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project, _ = seeded
    as_client_of(home, monkeypatch)
    stop_engines(home)
    # "At once": far under the 30 s the engine would be given to take the request.
    started = time.monotonic()
    assert readvia.ask(str(home), ["list"], accept_s=30.0) is None
    assert time.monotonic() - started < 10.0
    got = cli(home, project, "list", "--limit", "3")
    assert got.returncode == 0 and b"lessons 1\xe2\x80\x933 of 66" in got.stdout, got
    # a socket left behind by a killed engine: refused at once, same answer
    sock = Path(wire.socket_path(home))
    sock.parent.mkdir(parents=True, exist_ok=True)
    import socket

    sock.unlink(missing_ok=True)  # (an engine killed by an earlier test may have left its own)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(sock))
    stale.close()
    try:
        started = time.monotonic()
        assert readvia.ask(str(home), ["list"], accept_s=30.0) is None
        assert time.monotonic() - started < 10.0
        assert same(cli(home, project, "list", "--limit", "3"), got)
    finally:
        sock.unlink()


def test_a_stopped_engine_is_given_up_on_within_the_bound(
    engine: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project, _ = engine
    as_client_of(home, monkeypatch)
    expected = in_process(home, project, "list", "--limit", "4")
    assert readvia.ask(str(home), ["list", "--limit", "4"]) is not None  # answered while it runs
    (pid,) = serve_pids(home)
    os.kill(pid, signal.SIGSTOP)  # the socket still accepts (kernel backlog); nothing answers
    try:
        started = time.monotonic()
        assert readvia.ask(str(home), ["list"], accept_s=1.0, timeout_s=60.0) is None
        assert 1.0 <= time.monotonic() - started < 20.0  # its accept bound, not the 60 s answer bound
        got = cli(home, project, "list", "--limit", "4", TWICESHY_READ_ACCEPT_S="1")
        assert same(got, expected), got
    finally:
        os.kill(pid, signal.SIGCONT)
    assert wait_for(lambda: engine_mod.call(home, "ping") is not None)


def test_a_lesson_learned_by_another_process_is_in_the_routed_list(engine: tuple[Path, Path, str]) -> None:
    home, project, _ = engine
    learned = cli(
        home, project, "learn", "Pin the lockfile before upgrading", "--trigger", "npm update", "--tier", "qa"
    )
    assert learned.returncode == 0, learned.stderr
    new_id = learned.stdout.split()[1].decode()
    before = reads(home)["served"]
    routed = cli(home, project, "list", "--tier", "qa", "--limit", "1", "--json")
    assert reads(home)["served"] == before + 1
    assert [e["id"] for e in json.loads(routed.stdout)] == [new_id]  # newest first within its tier
    assert same(routed, in_process(home, project, "list", "--tier", "qa", "--limit", "1", "--json"))
    forgot = cli(home, project, "forget", new_id)
    assert forgot.returncode == 0
    assert new_id.encode() not in cli(home, project, "list", "--all", "--json").stdout


def test_list_pages(seeded: tuple[Path, Path, str]) -> None:
    home, project, _ = seeded
    everything = json.loads(in_process(home, project, "list", "--all", "--json").stdout)
    assert len(everything) == 66
    tiers = [e["tier"] for e in everything]
    assert tiers == sorted(tiers)  # principles first, then rules, qa, raw
    pages = []
    for offset in range(0, 66, 25):
        page = in_process(home, project, "list", "--json", "--limit", "25", "--offset", str(offset))
        pages += json.loads(page.stdout)
        rest = max(0, 66 - offset - 25)
        assert (f"{rest} more".encode() in page.stderr) == bool(rest), page.stderr
    assert [e["id"] for e in pages] == [e["id"] for e in everything]
    table = in_process(home, project, "list", "--limit", "5", "--offset", "10")
    assert b"lessons 11\xe2\x80\x9315 of 66" in table.stdout
    assert b"51 more \xe2\x80\x94 use --limit/--offset or --all" in table.stdout
    assert table.stdout.count(b"\xe2\x94\x82 ") >= 5 * 6  # five rows of six cells
    default = in_process(home, project, "list")
    assert b"lessons 1\xe2\x80\x9350 of 66" in default.stdout and b"16 more" in default.stdout
    rules = json.loads(in_process(home, project, "list", "--tier", "rule", "--json", "--all").stdout)
    assert rules and {e["tier"] for e in rules} == {1}
    past = in_process(home, project, "list", "--offset", "66")
    assert past.returncode == 0 and b"no lessons past 66 (of 66)" in past.stdout


def test_a_read_never_holds_a_hook_worker(seeded: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A read paused inside its command (fault point): hooks are answered, a second read is declined."""
    home, project, _ = seeded
    as_client_of(home, monkeypatch)
    start_engine(home, TWICESHY_FAULT_PAUSE="read.running:1")
    marker = home / "fault-read.running"
    try:
        started = time.monotonic()
        assert readvia.ask(str(home), ["list"], timeout_s=1.5) is None  # taken, then never finished
        assert time.monotonic() - started < 20.0  # gave up on its bound (the command never ends)
        assert wait_for(marker.exists, timeout=60)  # the read thread is inside the command, for good
        payload = json.dumps(
            {
                "session_id": "s1",
                "cwd": str(project),
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf build"},
            }
        ).encode()
        clients = [
            subprocess.Popen(
                [PY, "-I", "-S", CLIENT, "--home", str(home), "--budget-ms", "15000", "claude-code", "PreToolUse"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env_for(home),
            )
            for _ in range(8)  # twice the engine's hook workers
        ]
        started = time.monotonic()
        outs = [c.communicate(payload.replace(b"s1", f"s{n}".encode()), timeout=60) for n, c in enumerate(clients)]
        took = time.monotonic() - started
        assert all(b"make clean" in out for out, _ in outs), outs  # answered by the engine, not failed open
        assert took < 30.0
        started = time.monotonic()
        # busy: declined at once, not queued (a queued read would wait out the 30 s accept bound)
        assert readvia.ask(str(home), ["list"], accept_s=30.0) is None
        assert time.monotonic() - started < 10.0
        assert reads(home)["declined"].get("busy") == 1
        got = cli(home, project, "list", "--limit", "2")  # and the CLI runs it itself
        assert same(got, in_process(home, project, "list", "--limit", "2"))
    finally:
        stop_engines(home)
        if marker.exists():
            marker.unlink()


def test_the_fast_path_imports_nothing_heavy(engine: tuple[Path, Path, str]) -> None:
    home, project, _ = engine
    probe = (
        "import atexit, sys\n"
        "heavy = ('click', 'chromadb', 'numpy', 'rich', 'onnxruntime', 'yaml')\n"
        "atexit.register(lambda: sys.__stderr__.write('HEAVY ' + ' '.join(m for m in heavy if m in sys.modules)))\n"
        "from twiceshy.ops.cli import main\n"
        "main()\n"
    )
    before = reads(home)["served"]
    proc = subprocess.run(
        [PY, "-c", probe, "search", "rm -rf build"],
        capture_output=True,
        env=env_for(home),
        cwd=str(project),
        timeout=60,
    )
    assert reads(home)["served"] == before + 1
    assert b"make clean" in proc.stdout
    assert proc.stderr.strip().endswith(b"HEAVY"), proc.stderr


def test_writing_and_help_invocations_run_in_process(engine: tuple[Path, Path, str]) -> None:
    home, project, _ = engine
    for argv in (
        ["review", "--approve", "x"],
        ["review", "--reject=x"],
        ["context", "--write"],
        ["projects", "--promote"],
        ["list", "--help"],
        ["learn", "x"],
        ["--version"],
        [],
    ):
        assert not readvia.routable(argv), argv
    assert readvia.routable(["search", "--write"]) and readvia.routable(["list", "--all"])
    before = reads(home)["served"]
    got = cli(home, project, "review", "--approve", "nosuch")
    assert got.returncode == 1 and b"no held lesson with id nosuch" in got.stderr
    assert reads(home)["served"] == before


def test_another_store_in_the_client_config_is_declined(engine: tuple[Path, Path, str], tmp_path: Path) -> None:
    home, project, _ = engine
    other = tmp_path / "other-store"
    got = cli(home, project, "list", TWICESHY_STORE__PATH=str(other))
    assert got.returncode == 0 and b"0 lessons" in got.stdout  # that store, not the engine's
    assert reads(home)["declined"].get("other-store") == 1
    debug = cli(home, project, "list", "--limit", "1", TWICESHY_DEBUG="1")
    assert debug.returncode == 0 and reads(home)["declined"].get("debug") == 1
