"""Holding a lesson's mistake while the engine cannot answer: the hook client's side of the hold index.

The engine decides every hold. But the first calls after it stopped (idle exit,
a reboot, ``engine stop``) reach an engine that is still loading, and the client
cannot wait for it: the call would run unheld, on exactly the occasion the
lesson was learned for (a new session repeating yesterday's mistake). So every
process that writes the store keeps a *hold index* beside the rules snapshot
(:mod:`twiceshy.recall.hold_index` writes it): for each lesson that may hold,
its signature, the parts its fix adds and takes away, its project and the hold
reason, sharded by the programs a call must run to match (``@edit`` for code
lessons). When the engine did not answer a pre-tool call, the client reads only
the shards of the programs the call runs and applies the same checks the engine
applies (:func:`match.check`, then "the call does what the fix adds: it is the
fix"), without the similarity search that only proposes candidates.

A hold is once per session and call, as the engine's: the client notes each
cold hold (a hash of the session and the call) in ``run/cold_holds``, so the
identical retry passes even if the engine is still away; and it queues the call
for the engine (the spool), which replays it when it is up — the hold then
joins the session's record (the retry passes, the judge sees what followed,
``stats`` count it once).

Standard library only; never raises (a broken index holds nothing).
"""

import os
import time

FOLDER = "hold_index"
BUCKETS = 64
SHARD_MAX_BYTES = 64 * 1024 * 1024  # a shard is ~600 bytes a lesson; only a damaged file is bigger
ONCE_FILE = "cold_holds"
ONCE_TTL_S = 24 * 3600
ONCE_MAX_BYTES = 64 * 1024


def check(home, native_event, payload_bytes, call_of, match, fingerprint):
    """``(reason, lesson ids, once key)`` when the hold index holds this pre-tool call
    (not held from the index before in its session), else None. Never raises."""
    import json

    try:
        payload = json.loads(payload_bytes or b"{}")
        tool_name, tool_input, cwd = call_of(native_event, payload)
        if not tool_name:
            return None
        key = once_key(payload, tool_name, tool_input)
        if held_before(home, key):
            return None  # the model saw this hold and sent the call again: it is in charge

        def project_of():
            try:
                return fingerprint(cwd) if cwd else ""
            except Exception:
                return ""

        hits = find(home, match, tool_name, tool_input, project_of)
        if not hits:
            return None
        return reason_of(hits), [str(h.get("id")) for h in hits], key
    except Exception:
        return None


def index_dir(home):
    return os.path.join(os.path.abspath(os.path.expanduser(str(home))), FOLDER)


def bucket_of(key):
    """The shard of an index key (a program name, or ``@edit``): FNV-1a, stable across processes."""
    h = 0xCBF29CE484222325
    for byte in key.encode("utf-8", "surrogateescape"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h % BUCKETS


def shard_path(home, bucket):
    return os.path.join(index_dir(home), "%02d.json" % bucket)


# (path, only) -> (stat key, entries): the engine reads the index on every read-only call.
# With ``only``, just the entries it keeps are cached (a 100k store's shards hold ~60 MB of JSON).
_shards: dict = {}


def _read_shard(home, bucket, only=None):
    import json

    path = shard_path(home, bucket)
    try:
        st = os.stat(path)
    except OSError:
        return []
    key = (st.st_ino, st.st_mtime_ns, st.st_size)
    cached = _shards.get((path, only))
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read(SHARD_MAX_BYTES))
    except (OSError, ValueError):
        return []
    entries = data.get("rules") if isinstance(data, dict) else None
    entries = entries if isinstance(entries, list) else []
    if only is not None:
        entries = [e for e in entries if isinstance(e, dict) and only(e)]
    _shards[(path, only)] = (key, entries)
    return entries


def find(home, match, tool_name, tool_input, project_of, only=None):
    """The index entries whose lesson holds this call (``project_of()``: the call's project fingerprint).

    ``only(entry)``: a module-level predicate; the entries it rejects are never
    checked (what the engine asks on every read-only call is whether a lesson
    about a look holds it: the other lessons of ``git`` do not make that call cost more)."""
    keys = match.index_keys(tool_name, tool_input)
    if not keys:
        return []
    command = match.command_of(tool_name, tool_input)
    parts = None
    project = None
    hits = []
    seen = set()
    for bucket in sorted({bucket_of(k) for k in keys}):
        for entry in _read_shard(home, bucket, only):
            if not isinstance(entry, dict) or entry.get("id") in seen:
                continue
            if not keys.intersection(entry.get("keys") or ()):
                continue
            scope = entry.get("project")
            if scope:
                if project is None:
                    project = project_of()
                if scope != project:
                    continue
            sig = entry.get("signature")
            if not isinstance(sig, dict) or not match.check(sig, tool_name, tool_input)[0]:
                continue
            adds, drops = set(entry.get("adds") or ()), set(entry.get("drops") or ())
            advice = entry.get("advice") or []
            if (adds or advice) and command:
                if parts is None:
                    parts = match.call_parts(command)
                if adds and match.is_the_fix(adds, drops, parts):
                    continue  # the call does what the fix adds: it is the fix
                if advice and match.follows_advice(advice, parts):
                    continue  # a taught lesson's advice names a value this call carries
            seen.add(entry.get("id"))
            hits.append(entry)
    if hits and command and known_good(home, match, tool_name, tool_input, project_of):
        # This very call worked here before: no lesson holds it, but the one whose own mistake it
        # is (a call can work once and fail another time: that lesson saw it fail).
        want = sorted(parts if parts is not None else match.call_parts(command))
        return [entry for entry in hits if entry.get("failed") == want]
    return hits


def known_good(home, match, tool_name, tool_input, project_of):
    """The call is, part for part, the fix a lesson of its project stored: it ran and worked
    here before, so no lesson of another mistake (or an over-broad one) holds it. Evidence beats
    inference; a confirmed rule (the rules snapshot, not this index) still denies."""
    keys = match.index_keys(tool_name, tool_input)
    command = match.command_of(tool_name, tool_input)
    if not keys or not command:
        return False
    want = sorted(match.call_parts(command))
    if not want:
        return False
    project = None
    for bucket in sorted({bucket_of(k) for k in keys}):
        for entry in _read_shard(home, bucket):
            if not isinstance(entry, dict) or entry.get("worked") != want:
                continue
            if not keys.intersection(entry.get("keys") or ()):
                continue
            scope = entry.get("project")
            if scope:
                if project is None:
                    project = project_of()
                if scope != project:
                    continue
            return True
    return False


def reason_of(entries):
    """One hold reason for every lesson that holds the call: the first one's head and tail, each one's lines."""
    texts = [str(e.get("reason") or "") for e in entries if e.get("reason")]
    if not texts:
        return "Held once by twiceshy: this call repeats a mistake from an earlier session.\n"
    first = texts[0].splitlines()
    middle = [line for text in texts for line in text.splitlines()[1:-1]]
    return "\n".join([first[0], *middle, first[-1]]) + "\n"


def once_key(payload, tool_name, tool_input):
    """The session and the call, hashed: the identical retry in the same session has the same key."""
    import hashlib
    import json

    session = ""
    if isinstance(payload, dict):
        for name in ("session_id", "sessionId", "conversation_id", "thread_id"):
            value = payload.get(name)
            if isinstance(value, str) and value:
                session = value
                break
    text = json.dumps([session, tool_name, tool_input], sort_keys=True, default=str)
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:24]


def _once_path(home):
    return os.path.join(os.path.abspath(os.path.expanduser(str(home))), "run", ONCE_FILE)


def held_before(home, key):
    """Was this key held from the index within :data:`ONCE_TTL_S`?"""
    try:
        with open(_once_path(home), "rb") as fh:
            raw = fh.read(ONCE_MAX_BYTES * 2)
    except OSError:
        return False
    cutoff = time.time() - ONCE_TTL_S
    needle = key.encode("ascii")
    for line in raw.splitlines():
        stamp, _, got = line.partition(b" ")
        if got == needle:
            try:
                if float(stamp) >= cutoff:
                    return True
            except ValueError:
                continue
    return False


def note_held(home, key):
    """Record a cold hold (one O_APPEND line; the file restarts past :data:`ONCE_MAX_BYTES`)."""
    try:
        path = _once_path(home)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o600)
        try:
            if os.fstat(fd).st_size > ONCE_MAX_BYTES:
                os.ftruncate(fd, 0)  # old keys are days old or many: a second hold is the worst case
            os.write(fd, ("%.3f %s\n" % (time.time(), key)).encode("ascii"))
        finally:
            os.close(fd)
    except OSError:
        pass
