"""BURACO_ENV=production refuses to start on what the README calls required: a strong
SECRET_KEY (as `check --deploy` judges it), ALLOWED_HOSTS; an empty DATABASE_URL is the
default in development and a clear error in production. Each case imports the settings in
a fresh process with its environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "k3-Vq9!zR7#mW2@pL8$xN4%tB6^cH1&yF5*jD0(uG3)sA9_eQ7+"  # 51 characters, many distinct
PROBE = (
    "import json, buraco_site.settings as s; "
    "print(json.dumps({'engine': s.DATABASES['default']['ENGINE'], 'hosts': s.ALLOWED_HOSTS, 'debug': s.DEBUG}))"
)


def _import_settings(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("BURACO_ENV", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "DEBUG")}
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=60)


def _refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode != 0, result.stdout
    assert "ImproperlyConfigured" in result.stderr, result.stderr[-500:]
    last = result.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in last, last


@pytest.mark.parametrize("key", ["x", "a" * 60, "abcd" * 20, "django-insecure-" + "q8#Zr2!kL5@xV9$mN3%tB7^cH1&yF6*jD4"])
def test_production_refuses_a_weak_secret_key(key: str) -> None:
    _refused(_import_settings(BURACO_ENV="production", SECRET_KEY=key, ALLOWED_HOSTS="example.org"),
             "SECRET_KEY", "50")


def test_production_refuses_a_missing_secret_key() -> None:
    _refused(_import_settings(BURACO_ENV="production", ALLOWED_HOSTS="example.org"), "set it")


@pytest.mark.parametrize("hosts", [None, "", " , "])
def test_production_refuses_missing_allowed_hosts(hosts: str | None) -> None:
    env = {"BURACO_ENV": "production", "SECRET_KEY": STRONG_KEY}
    if hosts is not None:
        env["ALLOWED_HOSTS"] = hosts
    _refused(_import_settings(**env), "ALLOWED_HOSTS", "set it")


def test_production_starts_with_a_strong_key_and_hosts() -> None:
    result = _import_settings(BURACO_ENV="production", SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="example.org")
    assert result.returncode == 0, result.stderr[-500:]
    settings = json.loads(result.stdout)
    assert settings["hosts"] == ["example.org"] and settings["debug"] is False


def test_an_empty_database_url_is_the_default_in_development() -> None:
    for value in ("", "  "):
        result = _import_settings(DATABASE_URL=value)
        assert result.returncode == 0, result.stderr[-500:]
        assert json.loads(result.stdout)["engine"] == "django.db.backends.sqlite3"


def test_an_empty_database_url_is_a_clear_error_in_production() -> None:
    _refused(_import_settings(BURACO_ENV="production", SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="example.org",
                              DATABASE_URL=""), "DATABASE_URL", "set it")
