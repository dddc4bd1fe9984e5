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
