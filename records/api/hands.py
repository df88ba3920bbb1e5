"""A hand: its timeline, one state, and other plays tried from a ply."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import ANY, RETRY_AFTER, StrictCharField, StrictIntegerField, errors
from records import selectors, services, throttling

from .access import SHARE_PARAMETER, hand_number, readable_match, stored_json
from .engine_schema import ETAG, IF_NONE_MATCH, NOT_MODIFIED, STATE, TIMELINE, EngineErrorField, TimelineEntryField


class HandTimelineApi(APIView):
    @extend_schema(
        summary="Every state of a hand, the deal first (ply 0), each with what was played",
        description=(
            "Each state is the table (`buraco.state.HandState.to_json()`) with `seat`, `action` (as written), "
            "`operation` (what the action did: `drew`, `took`, `melded`, `laid-off`, `picked-dead`, `discarded`) "
            "and `automatic` (the steps that followed it: `dead-to-stock`, `hand-ended`). "
            "States stop at the first illegal action, which `error` then describes."
        ),
        parameters=[SHARE_PARAMETER, IF_NONE_MATCH, ETAG],
        responses={200: TIMELINE, 304: NOT_MODIFIED, **errors(*ANY, 404, 409)},
    )
    def get(self, request: Request, match_id: int, hand: int) -> HttpResponse:
        # The thin path: one query for the stored bytes and who may read them; the full path
        # only for what it cannot answer (a 404 and its reason, a record never stored by hand).
        found = selectors.readable_timeline(user=request.user, match_id=match_id, number=hand,
                                            share=request.query_params.get("share"))
        if found is None:
            match = readable_match(request, match_id)
            found = match, selectors.hand_timeline(match=match, number=hand_number(match, hand))
        match, timeline = found
        # The stored answer as it is: no replay, no JSON encoding (records/timelines.py).
        return stored_json(request, timeline.gzipped, etag=f'"{match.sha256[:24]}-{services.ENGINE_VERSION}-{hand}"')


class HandStateApi(APIView):
    @extend_schema(summary="The table after a number of actions (one timeline entry)", parameters=[SHARE_PARAMETER],
                   responses={200: STATE, **errors(*ANY, 404, 409)})
    def get(self, request: Request, match_id: int, hand: int, ply: int) -> HttpResponse:
        match = readable_match(request, match_id)
        plies = selectors.hand_plies(match=match, number=hand_number(match, hand))
        if not 0 <= ply <= plies:
            raise exceptions.NotFound(f"hand {hand} has plies 0 to {plies}")
        state = selectors.hand_state_json(match=match, number=hand, ply=ply)
        body = b'{"match":%d,"hand":%d,"state":%s}' % (match.pk, hand, state)
        return HttpResponse(body, content_type="application/json")


MAX_TRY_ACTIONS = 200
MAX_ACTION_CHARS = 200


class TryInputSerializer(serializers.Serializer[Any]):
    ply = StrictIntegerField(min_value=0, help_text="play from the table after this many of the hand's actions")
    actions = serializers.ListField(
        child=StrictCharField(
            min_length=1, max_length=MAX_ACTION_CHARS, trim_whitespace=True,  # min_length: the schema says "" is refused
            error_messages={"max_length": f"an action has at most {MAX_ACTION_CHARS} characters"},
        ),
        min_length=1,
        max_length=MAX_TRY_ACTIONS,
        help_text=f"BRN actions such as \"p1 draw\", at most {MAX_TRY_ACTIONS}, each at most {MAX_ACTION_CHARS} characters",
        error_messages={"max_length": f"at most {MAX_TRY_ACTIONS} actions are tried at once"},
    )


TRY_RESPONSE = inline_serializer(
    "TryResult",
    {
        "match": serializers.IntegerField(),
        "hand": serializers.IntegerField(),
        "ply": serializers.IntegerField(help_text="the ply played from"),
        "results": serializers.ListField(
            child=inline_serializer(
                "TriedAction",
                {
                    "action": serializers.CharField(),
                    "entry": TimelineEntryField(required=False, help_text="the table after it, as a timeline entry"),
                    "error": EngineErrorField(required=False, help_text="why it cannot be played (the line stops there)"),
                },
            )
        ),
        "complete": serializers.BooleanField(help_text="every action was played"),
    },
)


class HandTryApi(APIView):
    throttle_classes = [throttling.TryThrottle]

    @extend_schema(
        summary="Try another play from a ply: nothing is stored",
        description=(
            "Replays the hand to `ply`, then plays each action with the engine. Per action: the table after "
            "it (the timeline's entry format) or, for the first that cannot be played, the error, after which "
            "nothing more is tried. Anyone who may read the match may try (a share link too). Replays the "
            "stored hand alone, never the whole record; tries are rate-limited (per account, else per address)."
        ),
        parameters=[SHARE_PARAMETER, RETRY_AFTER],
        request=TryInputSerializer,
        responses={200: TRY_RESPONSE, **errors(*ANY, 403, 404, 409, 415, 429)},
    )
    def post(self, request: Request, match_id: int, hand: int) -> Response:
        match = readable_match(request, match_id)
        hand = hand_number(match, hand)
        given = TryInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        ply, actions = given.validated_data["ply"], given.validated_data["actions"]
        plies = selectors.hand_plies(match=match, number=hand)
        if ply > plies:
            raise exceptions.ValidationError({"ply": f"hand {hand} has plies 0 to {plies}"})
        results = selectors.hand_try(match=match, number=hand, ply=ply, actions=actions)
        complete = len(results) == len(actions) and not any("error" in r for r in results)
        return Response({"match": match.pk, "hand": hand, "ply": ply, "results": results, "complete": complete})
