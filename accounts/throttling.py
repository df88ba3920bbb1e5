"""Log-in and sign-up attempts: one counter for the API and the pages.

- every log-in attempt, per address (``login``), /api/auth/token/ and the log-in page together;
- every failed log-in, per account (``login-failures``), from whatever address: past it the
  account refuses every attempt (the right password too, or a guesser would learn it by the
  answer) until the oldest failure leaves the window;
- sign-ups, per address (``signup``).
"""

from __future__ import annotations

import hashlib

from apikit.throttling import CountedThrottle, SettingsRateThrottle

from .usernames import lookalike_key


class LoginThrottle(SettingsRateThrottle):
    scope = "login"
    by_address = True


class SignupThrottle(SettingsRateThrottle):
    scope = "signup"
    by_address = True


def _account_failures(username: str) -> CountedThrottle:
    # By look-alike key (the same account under another case or width is counted as one),
    # hashed: a cache key holds no spaces or control characters, whatever was typed.
    key = lookalike_key(username.strip()).encode("utf-8", "surrogatepass")
    return CountedThrottle("login-failures", hashlib.sha256(key).hexdigest())


def account_locked_for(username: str) -> int | None:
    """Seconds until ``username`` takes log-ins again; None when it takes them now."""
    return _account_failures(username).wait_seconds() if username else None


def account_failure(username: str) -> None:
    """Count a failed log-in of ``username``."""
    if username:
        _account_failures(username).count()
