"""Server-rendered pages: sign up, upload, my matches, a match's report, a batch's progress."""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from analysis import selectors as analysis_selectors
from buraco.rules import VARIANTS

from . import permissions, selectors, services
from .models import Batch, Job, Match


class FilterForm(forms.Form):
    variant = forms.ChoiceField(choices=[("", "any rule set"), *[(v, v) for v in VARIANTS]], required=False)
    player = forms.CharField(required=False, max_length=100)
    status = forms.ChoiceField(choices=[("", "any status"), *Match.Status.choices], required=False)
    date_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    mine = forms.BooleanField(required=False, label="only mine")


class MinPointsForm(forms.Form):
    min_points = forms.IntegerField(
        required=False, min_value=0, label="show findings worth at least",
        widget=forms.NumberInput(attrs={"step": 10, "size": 5}),
    )
    share = forms.CharField(required=False, widget=forms.HiddenInput)


class UploadForm(forms.Form):
    visibility = forms.ChoiceField(choices=Match.Visibility.choices, initial=Match.Visibility.PRIVATE)
    label = forms.CharField(required=False, max_length=200)


def match_list(request: HttpRequest) -> HttpResponse:
    form = FilterForm(request.GET or None)
    filters: dict[str, Any] = {}
    if form.is_bound and form.is_valid():
        filters = {k: v for k, v in form.cleaned_data.items() if v not in (None, "", False)}
    matches = selectors.match_list(user=request.user, **filters)
    page = Paginator(matches, 25).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "records/match_list.html", {"form": form, "page": page, "query": query.urlencode()})


def signup(request: HttpRequest) -> HttpResponse:
    form: UserCreationForm[User] = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, f"Welcome, {user.username}. Upload your first record.")
        return redirect("upload")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.POST or None)
    errors: list[dict[str, Any]] = []
    if request.method == "POST" and form.is_valid():
        files = [services.UploadedFile(f.name or "upload.brn", f.read()) for f in request.FILES.getlist("files")]
        try:
            result = services.upload_create(
                owner=cast(User, request.user), files=files, visibility=form.cleaned_data["visibility"],
                label=form.cleaned_data["label"],
            )
        except services.UploadError as error:
            errors = error.errors
        else:
            if result.batch is not None:
                return redirect("batch-detail", batch_id=result.batch.pk)
            if not result.created[0]:
                messages.info(request, "You had uploaded this record already.")
            return redirect("match-detail", match_id=result.matches[0].pk)
    return render(request, "records/upload.html", {"form": form, "errors": errors}, status=400 if errors else 200)


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    share = request.GET.get("share")
    match = selectors.match_for_reader(user=request.user, match_id=match_id, share=share)
    if match is None:
        raise Http404("no such match, or not yours to read")
    stake = MinPointsForm(request.GET)
    min_points = (stake.cleaned_data.get("min_points") or 0) if stake.is_valid() else 0
    findings = analysis_selectors.findings_by_hand(match=match, min_points=min_points)
    hands = list(match.hands.all())
    source_lines = bytes(match.source).decode("utf-8", errors="replace").splitlines()
    for hand in hands:
        error = hand.error or {}
        line = error.get("line")
        hand.error_line = source_lines[line - 1] if line and 0 < line <= len(source_lines) else None  # type: ignore[attr-defined]
        hand.findings = findings.get(hand.number, {})  # type: ignore[attr-defined]
    return render(
        request,
        "records/match_detail.html",
        {
            "match": match,
            "hands": hands,
            "sides": match.sides or [],
            "is_owner": permissions.can_manage(request.user, match),
            "can": permissions.abilities(request.user, match, share),
            "failure": selectors.match_failure(match=match),
            "analysis": match.job(Job.Kind.ANALYZE),
            "stake_form": stake,
            "min_points": min_points,
            "share_query": f"?{urlencode({'share': share})}" if share else "",
        },
    )


def hand_replay(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    """One hand's replay: the page is static, its JS loads the hand's timeline in one request."""
    share = request.GET.get("share")
    match = selectors.match_for_reader(user=request.user, match_id=match_id, share=share)
    if match is None:
        raise Http404("no such match, or not yours to read")
    hands = list(match.hands.all())
    hand = next((h for h in hands if h.number == number), None)
    if hand is None:
        raise Http404(f"match {match_id} has hands 1 to {match.hand_count}")
    try:
        ply = max(0, int(request.GET.get("ply", "0")))
    except ValueError:
        ply = 0
    share_query = f"?{urlencode({'share': share})}" if share else ""
    running: list[int] | None = None
    match_scores = []
    for other in hands:
        if running is not None or other.number == 1:
            scores = other.scores
            running = [a + b for a, b in zip(running or [0] * len(scores), scores)] if scores else None
        match_scores.append({"hand": other.number, "scores": other.scores, "totals": running})
    config = {
        "match": match.pk,
        "hand": number,
        "hands": match.hand_count,
        "ply": ply,
        "players": match.players,
        "sides": match.sides or [],
        "actions": hand.actions,
        "share": share,
        "target": selectors.match_record(match=match).rules.target,
        "match_scores": match_scores,
        "urls": {
            "page": request.path,
            "timeline": f"/api/matches/{match.pk}/hands/{number}/timeline/{share_query}",
            "findings": f"/api/matches/{match.pk}/hands/{number}/findings/{share_query}",
            "try": f"/api/matches/{match.pk}/hands/{number}/try/{share_query}",
        },
    }
    return render(
        request,
        "records/replay.html",
        {
            "match": match, "hand": hand, "number": number, "config": config, "share_query": share_query,
            "previous": number - 1 if number > 1 else None,
            "next": number + 1 if number < match.hand_count else None,
        },
    )


@login_required
def batch_detail(request: HttpRequest, batch_id: int) -> HttpResponse:
    batch = Batch.objects.filter(pk=batch_id, owner=cast(User, request.user)).first()
    if batch is None:
        raise Http404("no such batch of yours")
    progress = selectors.batch_progress(batch=batch)
    matches = batch.matches.with_status().defer("source").order_by("id")[:200]
    return render(request, "records/batch_detail.html", {"batch": batch, "progress": progress, "matches": matches})
