"""The training API: a player's puzzles (due first), one puzzle's table from its seat, an
attempt judged by the engine, and a coach's pick shared with a match's owner.

Training needs an account (401 without one). A user sees only their own puzzles, of matches
they may read without a share link; any other puzzle is a 404, as for a match one may not read.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis.api import NAME_PARAMETER
from analysis.models import Finding
from apikit.errors import ANY, RETRY_AFTER, ServiceError, StrictCharField, StrictIntegerField, errors
from apikit.paging import page_parameters, paged, paged_schema
from buraco.analysis import KINDS, SEVERITIES
from buraco.analysis.puzzles import VERDICTS, IllegalAttempt
from records import permissions, throttling
from records.api.hands import MAX_ACTION_CHARS, MAX_TRY_ACTIONS

from . import selectors, services
from .models import Puzzle

QUESTION = "What is your turn?"


def _user(request: Request) -> Any:
    if not request.user.is_authenticated:
        raise exceptions.NotAuthenticated("training needs an account: log in, or send a token")
    return request.user


def _puzzle(request: Request, puzzle_id: int) -> Puzzle:
    puzzle = selectors.puzzle_for(_user(request), puzzle_id)
    if puzzle is None:
        raise exceptions.NotFound(f"no puzzle {puzzle_id} of yours")
    return puzzle


class PuzzleSerializer(serializers.ModelSerializer[Puzzle]):
    """A puzzle in a list: what it is about, never its answer (the finding's message and
    witness come with the first attempt's answer)."""

    match = serializers.IntegerField(source="finding.match_id")
    hand = serializers.IntegerField(source="finding.hand")
    ply = serializers.IntegerField(source="finding.ply", help_text="the finding's ply (the replay's)")
    seat = serializers.IntegerField(source="finding.seat")
    player = serializers.SerializerMethodField(help_text="the seat's player, as the record names them")
    kind = serializers.ChoiceField(source="finding.kind", choices=list(KINDS))
    severity = serializers.ChoiceField(source="finding.severity", choices=list(SEVERITIES), allow_null=True)
    variant = serializers.CharField(source="finding.match.variant")
    shared_by = serializers.SerializerMethodField(help_text="the coach who picked it; null for one of your uploads")
    page = serializers.SerializerMethodField(help_text="the puzzle's page")

    class Meta:
        model = Puzzle
        fields = ["id", "match", "hand", "ply", "seat", "player", "kind", "severity", "variant", "due",
                  "interval_days", "repetitions", "ease", "shared_by", "created_at", "page"]

    def get_player(self, puzzle: Puzzle) -> str:
        return selectors.player_name(puzzle)

    def get_shared_by(self, puzzle: Puzzle) -> str | None:
        return puzzle.shared_by.get_username() if puzzle.shared_by else None

    def get_page(self, puzzle: Puzzle) -> str:
        return f"/training/{puzzle.pk}/"


POSITION = inline_serializer("PuzzlePosition", {
    "seat": serializers.IntegerField(),
    "turn": serializers.IntegerField(),
    "step": serializers.CharField(),
    "ply": serializers.IntegerField(help_text="the hand's plies played before this table: the turn's draw step is the next"),
    "hand": serializers.ListField(child=serializers.CharField(), help_text="the seat's own cards"),
    "others": serializers.DictField(child=serializers.IntegerField(), help_text="the other seats' card counts"),
    "melds": serializers.ListField(child=serializers.DictField(), help_text="every meld on the table"),
    "discard": serializers.ListField(child=serializers.CharField(), help_text="the pile, bottom first"),
    "stock": serializers.IntegerField(help_text="cards in the stock"),
    "dead": serializers.ListField(child=serializers.IntegerField(), help_text="cards in each dead pile"),
    "dead_taken": serializers.ListField(child=serializers.BooleanField()),
    "running": serializers.ListField(child=serializers.DictField()),
    "draw": serializers.CharField(allow_null=True, help_text="the card a draw from the stock gives"),
})

DETAIL = inline_serializer("PuzzleDetail", {
    "puzzle": PuzzleSerializer(),
    "question": serializers.CharField(),
    "position": POSITION,
    "attempts": serializers.IntegerField(help_text="your attempts so far"),
})


class PlayerPuzzlesApi(APIView):
    @extend_schema(
        summary="Your puzzles of a player's findings, due first, paged",
        description=(
            "`name` is a player's name as the records write it (compared without case). Your puzzles are made "
            "from the analysed matches you uploaded (the findings of the seat named as your username, or of "
            "every seat when none is) and from those a coach shared with you (POST /api/puzzles/). A puzzle "
            "never attempted is due the day it is made. A share link reads no puzzles. 404 when you have "
            "no puzzle of that player (as for a player with no match you may read)."
        ),
        parameters=[NAME_PARAMETER, *page_parameters()],
        responses={200: paged_schema("PlayerPuzzles", PuzzleSerializer(many=True), player=serializers.CharField()),
                   **errors(*ANY, 404)},
    )
    def get(self, request: Request, name: str) -> Response:
        puzzles = selectors.puzzles_of_player(_user(request), name) if "\x00" not in name else Puzzle.objects.none()
        if not puzzles.exists():
            raise exceptions.NotFound(f"no puzzle of {name!r} for you")
        return paged(request, puzzles, PuzzleSerializer, self, extra={"player": name})


class ShareInputSerializer(serializers.Serializer[Any]):
    finding = StrictIntegerField(min_value=1, help_text="the finding's id (GET /api/findings/ lists them)")


class PuzzleShareApi(APIView):
    @extend_schema(
        summary="Pick a finding as a puzzle for its match's owner (a coach)",
        description="Anyone who may review the match (its owner, a user it is shared with) may pick. "
                    "201 with the new puzzle; 200 when the owner has it already.",
        request=ShareInputSerializer,
        responses={201: PuzzleSerializer, 200: PuzzleSerializer, **errors(*ANY, 403, 404, 415)},
    )
    def post(self, request: Request) -> Response:
        user = _user(request)
        given = ShareInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        finding = Finding.objects.select_related("match").filter(pk=given.validated_data["finding"]).first()
        if finding is None or not permissions.can_read(user, finding.match):
            raise exceptions.NotFound(f"no finding {given.validated_data['finding']} that you may read")
        if not permissions.can_review(user, finding.match):
            raise exceptions.PermissionDenied("only the match's owner and those it is shared with may pick its puzzles")
        try:
            puzzle, created = services.share_puzzle(coach=user, finding=finding)
        except services.NotAPuzzle as error:
            raise ServiceError(str(error), extra={"kind": finding.kind}) from error
        return Response(PuzzleSerializer(puzzle).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class PuzzleDetailApi(APIView):
    @extend_schema(
        summary="A puzzle: the table at the start of the turn, from the seat",
        description="The seat's hand, every meld, the pile, and counts only of the other hands, the stock and "
                    "the dead piles; `draw` is the card a stock draw gives (the analysis judged the turn knowing "
                    "it). The question: what is your turn?",
        responses={200: DETAIL, **errors(*ANY, 404, 409)},
    )
    def get(self, request: Request, puzzle_id: int) -> Response:
        puzzle = _puzzle(request, puzzle_id)
        return Response({"puzzle": PuzzleSerializer(puzzle).data, "question": QUESTION,
                         "position": selectors.puzzle_position(puzzle), "attempts": puzzle.attempts.count()})


class AttemptInputSerializer(serializers.Serializer[Any]):
    actions = serializers.ListField(
        child=StrictCharField(min_length=1, max_length=MAX_ACTION_CHARS, trim_whitespace=True),
        min_length=1, max_length=MAX_TRY_ACTIONS,
        help_text="the whole turn as BRN actions, the draw step first (\"p1 draw\", \"p1 meld ...\", \"p1 discard Kc\")",
    )


ATTEMPT_RESPONSE = inline_serializer("PuzzleAnswer", {
    "puzzle": serializers.IntegerField(),
    "verdict": serializers.ChoiceField(
        choices=list(VERDICTS),
        help_text="best: as good as the witness or better; good: better than the turn as played, short of the "
                  "witness; short: no better than the turn as played"),
    "points": serializers.IntegerField(help_text="what your turn reaches, valued as the analysis values this kind"),
    "best_points": serializers.IntegerField(help_text="what the witness reaches"),
    "played_points": serializers.IntegerField(help_text="what the turn as played reached"),
    "short_by": serializers.IntegerField(),
    "witness": serializers.ListField(child=serializers.CharField(), help_text="the analysis's better line"),
    "message": serializers.CharField(help_text="the finding's message"),
    "quality": serializers.IntegerField(help_text="the SM-2 quality given to the answer, 0 to 5"),
    "next_due": serializers.DateField(),
    "interval_days": serializers.IntegerField(),
    "repetitions": serializers.IntegerField(),
    "ease": serializers.FloatField(),
})


class PuzzleAttemptApi(APIView):
    throttle_classes = [throttling.TryThrottle]

    @extend_schema(
        summary="Try a turn on a puzzle: the engine judges it against the analysis, SM-2 schedules the puzzle",
        description="The turn is played from the puzzle's table; one that cannot be played (an illegal action, "
                    "another seat's action, a turn not ended by a discard or going out) is a 400 naming the "
                    "action and why, and is not kept. Attempts are rate-limited as tries are.",
        parameters=[RETRY_AFTER],
        request=AttemptInputSerializer,
        responses={200: ATTEMPT_RESPONSE, **errors(*ANY, 404, 409, 415, 429)},
    )
    def post(self, request: Request, puzzle_id: int) -> Response:
        puzzle = _puzzle(request, puzzle_id)
        given = AttemptInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            answered = services.answer(puzzle=puzzle, actions=list(given.validated_data["actions"]))
        except IllegalAttempt as error:
            raise ServiceError(error.message, extra={"index": error.index, "action": error.action}) from error
        return Response(answer_body(answered))


def answer_body(answered: services.Answer) -> dict[str, Any]:
    judgement, puzzle = answered.judgement, answered.puzzle
    return {
        "puzzle": puzzle.pk, "verdict": judgement.verdict, "points": judgement.points,
        "best_points": judgement.best_points, "played_points": judgement.played_points,
        "short_by": judgement.short_by, "witness": list(judgement.witness), "message": puzzle.finding.message,
        "quality": answered.attempt.quality, "next_due": puzzle.due.isoformat(), "interval_days": puzzle.interval_days,
        "repetitions": puzzle.repetitions, "ease": puzzle.ease,
    }
