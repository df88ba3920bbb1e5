"""The accounts API: sign-up and API tokens, their attempts limited (:mod:`accounts.throttling`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import exceptions, parsers, serializers, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import RETRY_AFTER, StrictCharField, WrongCredentials, errors

from . import services, throttling
from .usernames import MAX_LENGTH

# Django's UnicodeUsernameValidator (r"^[\w.@+-]+\Z"), as JSON Schema (ECMA-262) writes it.
USERNAME_PATTERN = r"^[\w.@+-]+$"


USERNAME_SCHEMA = {"type": "string", "minLength": 1, "maxLength": MAX_LENGTH, "pattern": USERNAME_PATTERN}


@extend_schema_field(USERNAME_SCHEMA)
class UsernameField(StrictCharField):
    """A username as accounts have them: 1 to 150 letters, digits and ``@ . + - _`` (the
    schema says so: an empty one, say, is refused with a 400 the schema announces)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=MAX_LENGTH, validators=[UnicodeUsernameValidator()], **kwargs)


def _password_min_length() -> int:
    """The shortest password Django's validators (settings.AUTH_PASSWORD_VALIDATORS) accept."""
    lengths = [
        int(getattr(validator, "min_length", 0))
        for validator in password_validation.get_default_password_validators()
        if isinstance(validator, password_validation.MinimumLengthValidator)
    ]
    return max(lengths, default=1)


PASSWORD_MAX = 128  # django.contrib.auth's User.password holds the hash; longer ones are refused


@extend_schema_field({
    "type": "string", "format": "password", "minLength": _password_min_length(), "maxLength": PASSWORD_MAX,
    "pattern": r"\D",  # Django's NumericPasswordValidator: not digits only
})
class PasswordField(StrictCharField):
    """A new account's password: its length, commonness, ... are Django's password validators'
    to judge (``services.user_create``); the schema states their minimum length."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=PASSWORD_MAX, trim_whitespace=False, style={"input_type": "password"}, **kwargs)


class SignupInputSerializer(serializers.Serializer[Any]):
    username = UsernameField()
    password = PasswordField()


class SignupApi(APIView):
    authentication_classes: list[Any] = []  # no session: no CSRF token is needed to sign up
    throttle_classes = [throttling.SignupThrottle]

    @extend_schema(
        summary="Make an account; the answer holds its API token",
        description=(
            "The password is checked by Django's password validators (length, commonness, ...). The name is "
            "stored NFKC-normalised and refused when it looks like an existing account's (the same letters in "
            "another case or width, or look-alike characters of other scripts)."
        ),
        request=SignupInputSerializer,
        parameters=[RETRY_AFTER],
        responses={
            201: inline_serializer("SignedUp", {"username": serializers.CharField(), "token": serializers.CharField()}),
            **errors(400, 415, 429),  # no 401: sign-up reads no credentials
        },
    )
    def post(self, request: Request) -> Response:
        given = SignupInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        user = services.user_create(**given.validated_data)
        token = services.token_for(user=user)
        return Response({"username": user.username, "token": token}, status=status.HTTP_201_CREATED)


class TokenInputSerializer(serializers.Serializer[Any]):
    """What the token endpoint reads, as strictly as its schema says (DRF's own takes a number
    for a name)."""

    username = UsernameField()
    password = StrictCharField(min_length=1, max_length=PASSWORD_MAX, trim_whitespace=False,
                               style={"input_type": "password"})


class TokenApi(ObtainAuthToken):
    """/api/auth/token/: DRF's, with its attempts limited per address and its failures per
    account (DRF's own view has no throttle)."""

    # The posted username and password are the credentials: a stale token sent along is no
    # reason to refuse a new one (401), nor is a session a reason to ask for a CSRF token.
    authentication_classes: list[Any] = []
    throttle_classes = [throttling.LoginThrottle]
    parser_classes = [parsers.JSONParser]  # ObtainAuthToken's own read forms too: one content type

    @extend_schema(
        summary="The API token of an account",
        request=TokenInputSerializer,
        parameters=[RETRY_AFTER],
        responses={200: inline_serializer("Token", {"token": serializers.CharField()}), **errors(400, 401, 415, 429)},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = request.data if hasattr(request.data, "get") else {}
        username = str(data.get("username") or "")
        wait = throttling.account_locked_for(username)
        if wait is not None:
            raise exceptions.Throttled(wait, f"too many failed log-ins for this account: try again in {wait} seconds")
        TokenInputSerializer(data=data).is_valid(raise_exception=True)
        given = self.get_serializer(data=data)
        if not given.is_valid():
            if "non_field_errors" in given.errors:  # both given, and they match no account
                throttling.account_failure(username)
                raise WrongCredentials("the username and password match no account")
            raise exceptions.ValidationError(given.errors)
        token = services.token_for(user=given.validated_data["user"])
        return Response({"token": token})
