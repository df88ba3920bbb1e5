"""Sharing a match: its share link, and the users it is shared with."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import USERNAME_SCHEMA, UsernameField
from accounts.services import user_named
from apikit.errors import ANY, errors
from records import services

from .access import managed_match

SHARE_LINK = inline_serializer(
    "ShareLink",
    {
        "share_token": serializers.CharField(),
        "api_url": serializers.URLField(help_text="this match in the API, opened by the link"),
        "page_url": serializers.URLField(help_text="this match's page, opened by the link"),
    },
)


def _link(request: Request, match_id: int, token: str) -> dict[str, str]:
    return {
        "share_token": token,
        "api_url": request.build_absolute_uri(f"/api/matches/{match_id}/?share={token}"),
        "page_url": request.build_absolute_uri(f"/matches/{match_id}/?share={token}"),
    }


class ShareLinkApi(APIView):
    @extend_schema(
        summary="The match's share link, made if it has none (owner only)",
        description="201 when the link is made now, 200 with the same link when it exists: asking twice never "
                    "breaks a link already given out (POST .../share-link/rotate/ replaces it).",
        request=None, responses={200: SHARE_LINK, 201: SHARE_LINK, **errors(*ANY, 403, 404)},
    )
    def post(self, request: Request, match_id: int) -> Response:
        match = managed_match(request, match_id)
        token, made = services.share_link_create(match=match)
        return Response(_link(request, match.pk, token), status=status.HTTP_201_CREATED if made else status.HTTP_200_OK)

    @extend_schema(summary="Revoke the share link (owner only)", responses={204: None, **errors(*ANY, 403, 404)})
    def delete(self, request: Request, match_id: int) -> Response:
        services.share_link_revoke(match=managed_match(request, match_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ShareLinkRotateApi(APIView):
    @extend_schema(summary="Replace the match's share link with a new one: the old one opens nothing (owner only)",
                   request=None, responses={201: SHARE_LINK, **errors(*ANY, 403, 404)})
    def post(self, request: Request, match_id: int) -> Response:
        match = managed_match(request, match_id)
        token = services.share_link_rotate(match=match)
        return Response(_link(request, match.pk, token), status=status.HTTP_201_CREATED)


class ShareWithSerializer(serializers.Serializer[Any]):
    username = UsernameField(help_text="the account to share the match with (or to stop sharing it with)")


class SharedWithApi(APIView):
    @extend_schema(
        summary="Share the match with another user (owner only)",
        request=ShareWithSerializer,
        responses={204: None, **errors(*ANY, 403, 404, 415)},
    )
    def post(self, request: Request, match_id: int) -> Response:
        match = managed_match(request, match_id)
        services.match_share_with(match=match, user=_user_named(request))
        return Response(status=status.HTTP_204_NO_CONTENT)



class SharedWithUserApi(APIView):
    @extend_schema(
        summary="Stop sharing the match with a user (owner only)",
        parameters=[OpenApiParameter("username", USERNAME_SCHEMA, OpenApiParameter.PATH,
                                     description="the account (any case) to stop sharing the match with")],
        responses={204: None, **errors(*ANY, 403, 404)},
    )
    def delete(self, request: Request, match_id: int, username: str) -> Response:
        match = managed_match(request, match_id)
        user = user_named(username)
        if user is None:
            raise exceptions.NotFound(f"no user {username!r}")
        services.match_unshare_with(match=match, user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _user_named(request: Request) -> Any:
    given = ShareWithSerializer(data=request.data)
    given.is_valid(raise_exception=True)  # empty, too long, NUL or other characters no username has: 400
    username = given.validated_data["username"]
    user = user_named(username)
    if user is None:
        raise exceptions.ValidationError({"username": [f"no user {username!r}"]})
    return user
