"""Secret redaction, table-driven: what must vanish, and what must survive."""

from __future__ import annotations

import pytest
from twiceshy.base.redact import MASK, contains_secret, redact

# (label, text, the secret that must not survive)
SECRETS = [
    ("openai", "export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234567890", "sk-proj-abcdefghijklmnop1234567890"),
    ("anthropic", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"),
    (
        "github",
        "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/x/y",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
    ),
    (
        "github-pat",
        "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    ),
    ("gitlab", "token glpat-AbCdEfGhIjKlMnOpQrSt", "glpat-AbCdEfGhIjKlMnOpQrSt"),
    ("aws-id", "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    (
        "aws-secret-kv",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "aws-secret-cli",
        "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("slack", "curl -d token=xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
    ("google", "?key=AIzaSyA1234567890abcdefghijklmnopqrstu", "AIzaSyA1234567890abcdefghijklmnopqrstu"),
    ("stripe", "sk_live_abcdefghijklmnop1234", "sk_live_abcdefghijklmnop1234"),
    ("huggingface", "HF=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"),
    (
        "npm",
        "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    (
        "jwt",
        "Cookie: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
    ),
    ("bearer", "curl -H 'Authorization: Bearer abcdef1234567890ABCDEF'", "abcdef1234567890ABCDEF"),
    ("basic", "Authorization: Basic dXNlcjpodW50ZXIyaHVudGVyMg==", "dXNlcjpodW50ZXIyaHVudGVyMg=="),
    (
        "private-key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA7",
    ),
    ("openssh-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n", "b3BlbnNzaC1rZXk"),
    ("postgres-url", "psql postgres://admin:hunter2@db.internal:5432/app", "hunter2"),
    ("mongodb-srv", "MONGO=mongodb+srv://svc:S3cr3tPass@cluster0.example.net/db", "S3cr3tPass"),
    ("redis-nouser", "redis-cli -u redis://:p4ssw0rd@cache:6379/0", "p4ssw0rd"),
    ("url-query", "jdbc:postgresql://db/app?user=app&password=swordfish&ssl=true", "swordfish"),
    ("ado", "Server=db;User Id=sa;Password=Tr0ub4dor;Database=x", "Tr0ub4dor"),
    ("kv-password", "DB_PASSWORD='correct horse'", "correct"),
    ("json-secret", '{"client_secret": "abc123def456ghi789"}', "abc123def456ghi789"),
    ("flag-password", "mycli --password hunter22 --host x", "hunter22"),
    ("mysql-p", "mysql -u root -pRootPass99 app", "RootPass99"),
    ("credentials", "credentials: Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4"),
    ("entropy-key", "signing_key = 9f8A7b6C5d4E3f2G1h0IjKlMn", "9f8A7b6C5d4E3f2G1h0IjKlMn"),
    ("entropy-signature", "X-Signature: qZ8vT1rB5nW2yL6kP0aS3dF7", "qZ8vT1rB5nW2yL6kP0aS3dF7"),
    # issue 19: forms that used to pass through
    ("curl-u", "curl -u admin:Hunter2Pass https://api.internal/v1", "Hunter2Pass"),
    ("curl-user-eq", "curl --user=deploy:s3cr3t-pw -X POST https://x", "s3cr3t-pw"),
    ("url-userinfo", "git clone https://alice:Passw0rd99@git.internal/repo.git", "Passw0rd99"),
    (
        "slack-webhook",
        "curl -X POST https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/abcdEFGHijklMNOPqrstUVWX",
        "abcdEFGHijklMNOPqrstUVWX",
    ),
    (
        "discord-webhook",
        "https://discord.com/api/webhooks/123456789/AbCdEfGhIjKlMnOp_qrstuv",
        "AbCdEfGhIjKlMnOp_qrstuv",
    ),
    ("sshpass", "sshpass -p 'Sup3rS3cret' ssh root@host", "Sup3rS3cret"),
    ("sshpass-glued", "sshpass -pSup3rS3cret ssh root@host", "Sup3rS3cret"),
    ("mysql-p-long", "mysql -h db -u root -pSECRETvalue42 -e 'select 1'", "SECRETvalue42"),
    ("pgpassword", "PGPASSWORD=pgSecret77 psql -h db -U app", "pgSecret77"),
    ("password-eq-flag", "mycli --password=hunter22 --host x", "hunter22"),
    ("http-password", "wget --http-password=Wg3tPass https://x/file", "Wg3tPass"),
    ("docker-login", "docker login -u bot -p DockerPass123 registry.example.com", "DockerPass123"),
    (
        "bearer-header",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9xxxxxxxxxxxxxxx",
        "eyJhbGciOiJIUzI1NiJ9xxxxxxxxxxxxxxx",
    ),
    (
        "aws-session",
        "AWS_SESSION_TOKEN=FwoGZXIvYXdzEBYaDExampleSessionToken123",
        "FwoGZXIvYXdzEBYaDExampleSessionToken123",
    ),
    ("gitlab-pipeline", "glptt-AbCdEfGhIjKlMnOpQrSt1234", "glptt-AbCdEfGhIjKlMnOpQrSt1234"),
    ("github-app", "ghs_abcdefghijklmnopqrstuvwxyz012345", "ghs_abcdefghijklmnopqrstuvwxyz012345"),
    ("npm-authtoken", "//registry.npmjs.org/:_authToken=0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d", "0a1b2c3d-4e5f"),
    ("netrc-line", "machine api.example.com login bob password NetrcPass9", "NetrcPass9"),
    ("netrc-multiline", "machine api.example.com\n  login bob\n  password NetrcPass9\n", "NetrcPass9"),
    ("google-oauth", "ya29.a0AfH6SMBexampleexampleexample", "ya29.a0AfH6SMBexampleexampleexample"),
    (
        "ec-private-key",
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBexamplekeymaterial\n-----END EC PRIVATE KEY-----",
        "MHcCAQEEIBexamplekeymaterial",
    ),
    (
        "jwt-in-url",
        "https://app/cb?id_token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhYmMifQ.c2lnbmF0dXJlc2lnbmF0dXJl",
        "eyJzdWIiOiJhYmMifQ",
    ),
]

# Ordinary developer text that must pass through untouched.
CLEAN = [
    "git push --force origin main",
    "pytest tests/test_store.py -k 'search and scope'",
    "sort_key = lambda item: item.name",
    "primary_key=True, unique=True",
    "git checkout 3f2a9c1d8e7b6a5f4c3d2e1f0a9b8c7d6e5f4a3b",
    "Edit src/components/ButtonGroupHeaderItem/index.tsx",
    "the password is stored hashed with bcrypt",
    "https://github.com/owner/repo/blob/main/README.md",
    "curl -u $USER https://api.internal/v1",
    "mysql -p app_db < dump.sql",
    "the password field must be at least 12 characters",
    "docker login registry.example.com",
    "ssh -p 2222 deploy@host",
]


@pytest.mark.parametrize("label,text,secret", SECRETS, ids=[s[0] for s in SECRETS])
def test_secret_is_removed(label: str, text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out, out
    assert MASK in out
    assert contains_secret(text)


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_text_survives(text: str) -> None:
    assert redact(text) == text
    assert not contains_secret(text)


def test_context_around_a_secret_is_kept() -> None:
    out = redact("psql postgres://admin:hunter2@db.internal:5432/app -c 'select 1'")
    assert out.startswith("psql postgres://admin:")
    assert "@db.internal:5432/app -c 'select 1'" in out


def test_redaction_is_idempotent() -> None:
    for _, text, _ in SECRETS:
        once = redact(text)
        assert redact(once) == once


# ---------------------------------------------------------------------------
# ReDoS: every pattern must stay linear. A crafted 20 kB command took 30.8 s
# here before (repeated "a-": a free-length scheme/name before a failing tail).
# ---------------------------------------------------------------------------

FRAGMENTS = [
    "key", "_key_", "-key-", "password", "password=", "password='", 'password="', "PASSWORD_", "token ", "token=",
    "secret", "aws ", "aws", "A" * 39 + " ", "a.", "a-", "a://", "a://x:", ":", "@", "/", "mysql ", " -p",
    "sshpass ", "curl ", " -u ", "u:", "machine ", "login ", "password ", "docker login ", "--password ", "--",
    "eyJ", "eyJaaaaaaaaa.", "sk-", "ghp_", "glpat-", "xoxb-", "AIza", "-----BEGIN PRIVATE KEY-----", "-----BEGIN ",
    "bearer ", "Basic ", "hooks.slack.com/services/", "https://", "=", "'", '"', " ", "\n", "x", "0", "sig=", "salt: ",
]  # fmt: skip


def adversarial_inputs(size: int, seed: int = 19) -> list[tuple[str, str]]:
    """Each fragment repeated, each fragment paired with a few others, and random mixes."""
    import random

    rng = random.Random(seed)

    def fill(unit: str) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    out = [(f"rep:{f!r}", fill(f)) for f in FRAGMENTS]
    for a in FRAGMENTS:
        for b in rng.sample(FRAGMENTS, 4):
            out.append((f"pair:{a!r}+{b!r}", fill(a + b)))
    for i in range(40):
        parts: list[str] = []
        while sum(map(len, parts)) < size:
            parts.append(rng.choice(FRAGMENTS))
        out.append((f"mix{i}", "".join(parts)[:size]))
    return out


def _time(text: str) -> float:
    import time

    # CPU time of this thread, not the wall clock: a backtracking regex burns CPU,
    # and on a loaded 2-core box (load 12) the wall clock runs ~6x the CPU time.
    start = time.thread_time()
    redact(text)
    return time.thread_time() - start


def test_adversarial_inputs_are_redacted_in_bounded_time() -> None:
    cases = adversarial_inputs(20_000)
    worst = max((_time(text), name) for name, text in cases)
    print(f"redaction: {len(cases)} adversarial 20 kB inputs, worst {worst[0] * 1000:.0f} ms ({worst[1]})")
    assert len(cases) >= 250
    assert worst[0] < 1.5, worst  # was 30.8 s; ~0.1-0.3 s of CPU


def test_redaction_time_grows_linearly() -> None:
    # The slowest units at 20 kB, ten times longer: quadratic would be ~100x.
    for unit in ("a-", "_key_", "password=", "docker login ", "a://x:", "curl  -u "):
        small = min(_time((unit * 20_000)[:20_000]) for _ in range(3))
        big = min(_time((unit * 200_000)[:200_000]) for _ in range(2))
        assert big < 25 * small + 0.5, (unit, small, big)


def test_secret_after_long_hostile_prefix_is_still_redacted() -> None:
    text = "a-" * 10_000 + " PGPASSWORD=pgSecret77 psql"
    assert "pgSecret77" not in redact(text)
