"""Each account's look-alike key (:func:`accounts.usernames.lookalike_key`), unique: no two
accounts made under today's rule have names a reader could take for each other, and two
sign-ups racing for look-alike names cannot both succeed."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class UsernameKey(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="username_key")
    key = models.CharField(max_length=600, unique=True)  # a skeleton may be longer than the name

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key}"
