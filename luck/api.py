"""The luck API: a hand's luck, with the match's permissions (whoever may read the match,
its share link too; anyone else gets 404)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import ANY, errors
from records.api.access import SHARE_PARAMETER, hand_number, readable_match

from .selectors import hand_luck_answer, luck_status


def hand_luck_schema(**kwargs: Any) -> Any:
    """The luck of a hand (``luck.selectors.hand_luck_answer``), also a key of the hand's findings answer."""
    return inline_serializer("HandLuckFigures", {
        "luck": serializers.FloatField(help_text="the sum of the luck of the hand's judged stock draws, in points"),
        "partial": serializers.BooleanField(help_text="some draws were left unjudged by the CPU budget"),
        "seats": inline_serializer("SeatLuck", {
            "seat": serializers.IntegerField(), "player": serializers.CharField(allow_null=True),
            "side": serializers.IntegerField(),
            "luck": serializers.FloatField(help_text="the sum of the luck of the seat's judged draws"),
            "draws": serializers.IntegerField(help_text="stock draws judged"),
            "unsearched": serializers.IntegerField(help_text="stock draws the CPU budget left unjudged"),
            "score": serializers.IntegerField(help_text="the side's score of the hand"),
            "adjusted": serializers.FloatField(help_text="the luck-adjusted result: the side's score minus the side's luck"),
        }, many=True),
        "draws": inline_serializer("DrawLuck", {
            "ply": serializers.IntegerField(), "seat": serializers.IntegerField(), "card": serializers.CharField(),
            "value": serializers.IntegerField(allow_null=True, help_text="what the turn could reach with the card drawn"),
            "expected": serializers.FloatField(allow_null=True, help_text="the mean value over the cards the player could not see"),
            "luck": serializers.FloatField(allow_null=True, help_text="value minus expected; null: not judged"),
            "low": serializers.IntegerField(allow_null=True), "high": serializers.IntegerField(allow_null=True),
            "unseen": serializers.IntegerField(help_text="how many cards the player could not see"),
            "judged": serializers.BooleanField(),
        }, many=True),
    }, **kwargs)


HAND_LUCK_RESPONSE = inline_serializer("HandLuck", {
    "match": serializers.IntegerField(),
    "hand": serializers.IntegerField(),
    "job": inline_serializer("LuckJob", {
        "status": serializers.ChoiceField(choices=["none", "pending", "running", "done", "failed"]),
        "version": serializers.CharField(allow_null=True),
        "partial": serializers.BooleanField(),
    }),
    "luck": hand_luck_schema(allow_null=True),
})


class HandLuckApi(APIView):
    @extend_schema(
        summary="The luck of a hand's stock draws, per seat and per draw (docs/analysis.md, \"Luck\")",
        description=(
            "Each stock draw's luck is what the turn could reach with the card drawn (the best canasta gain or "
            "going-out margin, by the analysis's exact search) minus the mean over the cards the player could not "
            "see. `luck` is null until the match's luck job, queued after its analysis, is done."
        ),
        parameters=[SHARE_PARAMETER],
        responses={200: HAND_LUCK_RESPONSE, **errors(*ANY, 404)},
    )
    def get(self, request: Request, match_id: int, hand: int) -> Response:
        match = readable_match(request, match_id)
        number = hand_number(match, hand)
        return Response({"match": match.pk, "hand": number, "job": luck_status(match),
                         "luck": hand_luck_answer(match, number)})
