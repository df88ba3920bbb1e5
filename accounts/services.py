"""Writes: accounts and their API tokens. Keyword-only, typed.

Every username follows :mod:`accounts.usernames` (NFKC, no look-alike of an existing name),
whether the account is made through the API or the sign-up page.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from apikit.errors import ServiceError

from .models import UsernameKey
from .usernames import MAX_LENGTH, lookalike_key, normalized


class SignupError(ServiceError):
    """The account cannot be made: ``fields`` maps each field to its sentences."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        first = next(iter(fields.values()))[0]
        super().__init__(f"the account cannot be made: {first}", extra={"fields": fields})
        self.fields = fields


def username_problems(username: str) -> list[str]:
    """Why ``username`` cannot be a new account's name (empty: it can)."""
    name = normalized(username)
    try:
        UnicodeUsernameValidator()(name)
    except ValidationError as error:
        return list(error.messages)
    if len(name) > MAX_LENGTH:
        return [f"a username has at most {MAX_LENGTH} characters"]
    if User.objects.filter(username__iexact=name).exists():
        return [f"the username {name!r} is taken"]
    existing = (
        UsernameKey.objects.filter(key=lookalike_key(name)).values_list("user__username", flat=True).first()
    )
    if existing is not None:
        return [f"the username {name!r} looks like an existing account's ({existing!r}): choose another"]
    return []


def user_create(*, username: str, password: str) -> User:
    """A new account: its name by :func:`username_problems`, its password checked by
    Django's password validators."""
    name = normalized(username)
    fields: dict[str, list[str]] = {}
    problems = username_problems(name)
    if problems:
        fields["username"] = problems
    try:
        password_validation.validate_password(password, User(username=name))
    except ValidationError as error:
        fields["password"] = list(error.messages)
    if fields:
        raise SignupError(fields)
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=name, password=password)  # its key: username_key_keep
            if not UsernameKey.objects.filter(user=user).exists():
                raise IntegrityError("a look-alike name took the key meanwhile")
            return user
    except IntegrityError:  # the same or a look-alike name, taken meanwhile
        raise SignupError({"username": [f"the username {name!r} is taken"]}) from None


def username_key_keep(
    sender: Any, instance: User, created: bool, raw: bool = False, update_fields: Any = None, **_: Any
) -> None:
    """post_save of every User: its look-alike key made or kept current. An account made
    outside :func:`user_create` whose name looks like an older one keeps no key (the older
    account keeps its claim to the look)."""
    if raw or (update_fields is not None and "username" not in update_fields):
        return  # a log-in saves last_login only
    key = lookalike_key(instance.username)
    current = UsernameKey.objects.filter(user=instance).values_list("key", flat=True).first()
    if current == key:
        return
    with transaction.atomic():
        UsernameKey.objects.filter(user=instance).delete()
        if not UsernameKey.objects.filter(key=key).exists():
            try:
                with transaction.atomic():
                    UsernameKey.objects.create(user=instance, key=key)
            except IntegrityError:
                pass  # taken meanwhile by a look-alike


def user_named(username: str) -> User | None:
    """The account a user means by ``username`` (sharing with ``COACH`` means ``coach``):
    the exact name, else the one account whose name differs only in case or by NFKC."""
    if "\x00" in username:
        return None
    name = normalized(username.strip())
    exact = User.objects.filter(username=name).first()
    if exact is not None:
        return exact
    matches = list(User.objects.filter(username__iexact=name)[:2])
    return matches[0] if len(matches) == 1 else None


def token_for(*, user: User) -> str:
    """The user's API token (made on first use)."""
    from rest_framework.authtoken.models import Token

    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)
