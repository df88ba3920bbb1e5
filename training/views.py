"""The training pages: the puzzles due, one puzzle's table with a form for the turn, and the
match page's button that picks a finding as a puzzle for the match's owner.

Server-rendered, no script needed: the form posts the turn (actions separated by ``;`` or new
lines, Enter submits) and the page answers with the verdict and the witness."""

from __future__ import annotations

import re
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from analysis.models import Finding
from records import permissions
from records.api.hands import MAX_ACTION_CHARS, MAX_TRY_ACTIONS

from . import selectors, services
from .api import QUESTION, answer_body

# What a puzzle's points are, per kind (docs/analysis.md, "Training").
VALUE_LABELS = {
    "missed-canasta": "the canasta bonus your side's melds hold after the turn",
    "missed-going-out": "the hand's margin for your side",
    "dangerous-discard": "minus the pile's points when your discard lets the next player take it",
}


@login_required
def training(request: HttpRequest) -> HttpResponse:
    puzzles = list(selectors.trainable(request.user)[:200])
    today = timezone.now().date()
    for puzzle in puzzles:
        puzzle.player = selectors.player_name(puzzle)  # type: ignore[attr-defined]
    due = [p for p in puzzles if p.due <= today]
    later = [p for p in puzzles if p.due > today]
    return render(request, "training/training.html", {"due": due, "later": later, "today": today})


def split_actions(text: str) -> list[str]:
    """The turn typed in one line or several: actions between ``;``, commas or new lines.

    >>> split_actions("p1 draw; p1 discard Kc\\n")
    ['p1 draw', 'p1 discard Kc']
    """
    return [part.strip() for part in re.split(r"[;\n,]", text) if part.strip()]


@login_required
def puzzle_page(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    puzzle = selectors.puzzle_for(request.user, puzzle_id)
    if puzzle is None:
        raise Http404("no such puzzle of yours")
    context: dict[str, Any] = {"puzzle": puzzle, "question": QUESTION, "player": selectors.player_name(puzzle),
                               "value_label": VALUE_LABELS.get(puzzle.finding.kind, "points")}
    status = 200
    typed = ""
    if request.method == "POST":
        typed = str(request.POST.get("actions", ""))[: MAX_TRY_ACTIONS * MAX_ACTION_CHARS]
        actions = split_actions(typed)
        if not actions:
            context["error"] = "type the turn's actions, the draw step first"
            status = 400
        elif len(actions) > MAX_TRY_ACTIONS:
            context["error"] = f"at most {MAX_TRY_ACTIONS} actions"
            status = 400
        else:
            try:
                context["answer"] = answer_body(services.answer(puzzle=puzzle, actions=actions))
            except services.IllegalAttempt as error:
                context["error"] = error.message
                status = 400
    position = selectors.puzzle_position(puzzle)
    seat = position["seat"]
    context.update(position=position, typed=typed, seat=seat,
                   placeholder=f"p{seat} draw; p{seat} meld ...; p{seat} discard ...",
                   other_melds=[m for m in position["melds"] if m["side"] != puzzle.finding.side],
                   own_melds=[m for m in position["melds"] if m["side"] == puzzle.finding.side])
    return render(request, "training/puzzle.html", context, status=status)


@login_required
@require_POST
def pick_puzzle(request: HttpRequest, finding_id: int) -> HttpResponse:
    """The match page's "make it a puzzle" button (``POST /api/puzzles/`` for the pages): anyone
    who may review the match picks a finding as a puzzle for its owner; back to the finding."""
    finding = Finding.objects.select_related("match__owner").filter(pk=finding_id).first()
    if finding is None or not permissions.can_review(request.user, finding.match):
        raise Http404("no such finding of a match you may review")
    owner = finding.match.owner
    try:
        _, created = services.share_puzzle(coach=cast(AbstractBaseUser, request.user), finding=finding)  # logged in
    except services.NotAPuzzle as error:
        messages.error(request, str(error).capitalize() + ".")
    else:
        whose = "your" if owner.pk == request.user.pk else f"{owner.get_username()}'s"
        what = f"the {finding.kind} of hand {finding.hand} at ply {finding.ply}"
        if created:
            messages.success(request, f"Puzzle made: {what} is now in {whose} training.")
        else:
            messages.info(request, f"{what.capitalize()} is already in {whose} training.")
    return redirect(f"{reverse('match-detail', args=[finding.match_id])}#finding-{finding.pk}")
