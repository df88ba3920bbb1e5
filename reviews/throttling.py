"""Review, comment and reply writes are rate-limited per account (``review``): a comment
costs every later reader of the replay page."""

from __future__ import annotations

from apikit.throttling import SettingsRateThrottle


class ReviewWriteThrottle(SettingsRateThrottle):
    scope = "review"
    methods = ("POST", "PATCH", "DELETE")
