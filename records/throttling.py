"""Rate limits on what records' endpoints let anyone repeat (:mod:`apikit.throttling`)."""

from __future__ import annotations

from apikit.throttling import SettingsRateThrottle


class UploadThrottle(SettingsRateThrottle):
    scope = "upload"


class TryThrottle(SettingsRateThrottle):
    """POST .../try/ replays a hand for anyone who may read it, a share link or a public match
    too: counted per account, else per address."""

    scope = "try"
