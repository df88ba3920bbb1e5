"""Server-rendered pages: the match list, upload, a match's report, a hand's replay, a batch's
progress, the docs. Thin over the apps' selectors and services."""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from analysis import selectors as analysis_selectors
from analysis.api import replay_path, whose_names
from analysis.filters import FINDING_EXPLORER_ORDERINGS, FindingFilter
from analysis.players import FIGURES, PlayerFilters, chart_points, player_page
from apikit.throttling import page_refusal
from buraco.analysis import KINDS, SEVERITIES
from buraco.analysis.puzzles import makes_puzzle
from buraco.rules import VARIANTS, find_variant
from luck.selectors import match_luck
from records import permissions, selectors, services, throttling
from records.filters import MatchFilter
from records.models import Hand, Job, Match
from reviews.models import TAGS
from reviews.selectors import reviews_for_page

from . import docs
from .selectors import match_list_rows


class MinPointsForm(forms.Form):
    min_points = forms.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1, label="show findings worth at least",
        widget=forms.NumberInput(attrs={"step": 10, "size": 5}),
    )
    severity = forms.ChoiceField(
        required=False, label="as grave as", choices=[("", "any")] + [(name, name) for name in SEVERITIES],
    )
    share = forms.CharField(required=False, widget=forms.HiddenInput)


class UploadForm(forms.Form):
    visibility = forms.ChoiceField(choices=Match.Visibility.choices, initial=Match.Visibility.PRIVATE)
    label = forms.CharField(required=False, max_length=200)


def match_list(request: HttpRequest) -> HttpResponse:
    filters = MatchFilter(request.GET or None, user=request.user)
    form = filters.form
    matches = match_list_rows(user=request.user, filters=filters if filters.is_bound and filters.is_valid() else None)
    page = Paginator(matches, 25).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "pages/match_list.html", {"form": form, "page": page, "query": query.urlencode()})


EXPLORER_PAGE = 50


def findings_explorer(request: HttpRequest) -> HttpResponse:
    """Every finding of the analysed matches the viewer may read (GET /api/findings/'s rows)."""
    filters = FindingFilter(request.GET or None)
    valid = not filters.is_bound or filters.is_valid()
    ordering = request.GET.get("ordering") or "-points"
    if ordering not in FINDING_EXPLORER_ORDERINGS:
        valid = False
        filters.form.add_error(None, f"ordering: one of {', '.join(FINDING_EXPLORER_ORDERINGS)}")
    findings = analysis_selectors.explore_findings(
        user=request.user, filters=filters if filters.is_bound and valid else None,
        ordering=FINDING_EXPLORER_ORDERINGS.get(ordering, FINDING_EXPLORER_ORDERINGS["-points"]),
    ) if valid else analysis_selectors.explore_findings(user=request.user).none()
    page = Paginator(findings, EXPLORER_PAGE).get_page(request.GET.get("page"))
    for finding in page:
        finding.names = whose_names(finding)  # type: ignore[attr-defined]
        finding.replay_url = replay_path(finding)  # type: ignore[attr-defined]
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request, "pages/findings.html",
        {"form": filters.form, "page": page, "query": query.urlencode(), "ordering": ordering,
         "orderings": list(FINDING_EXPLORER_ORDERINGS)},
        status=200 if valid else 400,
    )


class PlayerFilterForm(forms.Form):
    variant = forms.ChoiceField(required=False, label="rule set", choices=[("", "any rule set")] + [(v, v) for v in VARIANTS])
    date_from = forms.DateField(required=False, label="uploaded from", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="uploaded to", widget=forms.DateInput(attrs={"type": "date"}))
    opponent = forms.CharField(required=False, max_length=100, label="against")


def player(request: HttpRequest, name: str) -> HttpResponse:
    """A player across their analysed games (GET /api/players/{name}/'s figures), with a chart."""
    form = PlayerFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return render(request, "pages/player.html", {"name": name, "form": form, "figures": None}, status=400)
    cleaned = {k: v for k, v in (form.cleaned_data if form.is_bound else {}).items() if v}
    figures = player_page(user=request.user, name=name, filters=PlayerFilters(**cleaned)) if "\x00" not in name else None
    if figures is None and not form.is_bound:
        raise Http404(f"no analysed match of {name!r} that you may read")
    charts = {figure: chart_points(figures["over_time"], figure) for figure in FIGURES} if figures else {}
    return render(request, "pages/player.html", {"name": name, "form": form, "figures": figures, "charts": charts})


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    refused = page_refusal(throttling.UploadThrottle(), request, "upload")
    if refused:
        return refused
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
                # Records uploaded before are not part of the batch: its page lists them apart.
                request.session[_duplicates_key(result.batch.pk)] = [
                    {"file": name, "id": match.pk} for name, match in result.duplicates[:MAX_DUPLICATES_SHOWN]
                ]
                request.session[_duplicates_key(result.batch.pk) + "-count"] = len(result.duplicates)
                # The files not stored, with their errors: the batch page lists them.
                request.session[_rejected_key(result.batch.pk)] = result.errors[:MAX_DUPLICATES_SHOWN]
                request.session[_rejected_key(result.batch.pk) + "-count"] = len(result.errors)
                return redirect("batch-detail", batch_id=result.batch.pk)
            if not result.created[0]:
                messages.info(request, "You had uploaded this record already.")
            return redirect("match-detail", match_id=result.matches[0].pk)
    return render(request, "pages/upload.html", {"form": form, "errors": errors}, status=400 if errors else 200)


def _duplicates_key(batch_id: int) -> str:
    return f"batch-{batch_id}-duplicates"


def _rejected_key(batch_id: int) -> str:
    return f"batch-{batch_id}-rejected"


MAX_DUPLICATES_SHOWN = 500


def side_names(match: Match) -> list[str]:
    """Each side named after its players: ``Ana + Caio``."""
    players = [str(p) for p in match.players or []]
    names = []
    for number, seats in enumerate(match.sides or [], start=1):
        who = [players[s - 1] for s in seats if 0 < s <= len(players)]
        names.append(" + ".join(who) or f"side {number}")
    return names


def score_rows(hand: Hand, names: list[str]) -> list[dict[str, Any]]:
    """One row per side of a hand's score table: its name, parts, score and claimed score."""
    claimed = (hand.claimed or {}).get("scores") or []
    rows = []
    for index, part in enumerate(hand.parts or []):
        mine = claimed[index] if index < len(claimed) else None
        rows.append({
            "side": names[index] if index < len(names) else f"side {index + 1}",
            "part": part,
            "claimed": mine,
            "differs": mine is not None and mine != part.get("total"),
        })
    return rows


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    share = request.GET.get("share")
    match = selectors.match_for_reader(user=request.user, match_id=match_id, share=share)
    if match is None:
        raise Http404("no such match, or not yours to read")
    stake = MinPointsForm(request.GET)
    valid = stake.is_valid()
    min_points = (stake.cleaned_data.get("min_points") or 0) if valid else 0
    severity = (stake.cleaned_data.get("severity") or None) if valid else None
    findings = analysis_selectors.findings_by_hand(match=match, min_points=min_points, severity=severity)
    share_query = f"?{urlencode({'share': share})}" if share else ""
    hands = list(match.hands.all())
    luck = match_luck(match)
    can = permissions.abilities(request.user, match, share)
    names = side_names(match)
    source_lines = bytes(match.source).decode("utf-8", errors="replace").splitlines()
    for hand in hands:
        error = hand.error or {}
        line = error.get("line")
        hand.error_line = source_lines[line - 1] if line and 0 < line <= len(source_lines) else None  # type: ignore[attr-defined]
        hand.findings = findings.get(hand.number, {})  # type: ignore[attr-defined]
        replay = reverse("hand-replay", args=[match.pk, hand.number])
        for finding in hand.findings.get("all", []):  # type: ignore[attr-defined]
            finding.replay_url = f"{replay}?{urlencode({'ply': finding.ply or 0, **({'share': share} if share else {})})}"
            finding.pickable = can["review"] and makes_puzzle(finding.as_engine())  # type: ignore[attr-defined]
        hand.rows = score_rows(hand, names)  # type: ignore[attr-defined]
        hand.luck = luck.get(hand.number)  # type: ignore[attr-defined]
    manage = permissions.can_manage(request.user, match)
    through = selectors.totals_through_hand(hands=hands)
    analysis = match.job(Job.Kind.ANALYZE)
    unscored = next((hand for hand in hands if hand.scores is None), None)
    return render(
        request,
        "pages/match_detail.html",
        {
            "match": match,
            "hands": hands,
            "sides": match.sides or [],
            "side_names": names,
            "totals": list(zip(names, match.totals or [])),
            "totals_through": through,
            "unscored": unscored,
            "is_owner": manage,
            "can": can,
            "shared_with": list(match.shared_with.order_by("username").values_list("username", flat=True))
            if manage else [],
            "failure": selectors.match_failure(match=match),
            "analysis": analysis,
            "analysis_partial": ((analysis.result or {}).get("unsearched") or []) if analysis else [],
            "stake_form": stake,
            "min_points": min_points,
            "severity": severity,
            "share_query": share_query,
            # From the match's URL alone: the page's own query (?min_points=, ?share=) is not repeated.
            "share_url": request.build_absolute_uri(
                f"{reverse('match-detail', args=[match.pk])}?{urlencode({'share': match.share_token})}"
            ) if manage and match.share_token else None,
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
        "share": share,
        "target": match.metadata.get("target") or find_variant(match.variant).target,
        "match_scores": match_scores,
        # One mapping each, read by the page's JS: the comment tags (reviews.models.TAGS) and
        # the finding kinds (buraco.analysis.KINDS).
        "tags": list(TAGS),
        "kinds": list(KINDS),
        "severities": list(SEVERITIES),  # mildest first
        "urls": {
            "page": request.path,
            "timeline": f"/api/matches/{match.pk}/hands/{number}/timeline/{share_query}",
            "findings": f"/api/matches/{match.pk}/hands/{number}/findings/{share_query}",
            "try": f"/api/matches/{match.pk}/hands/{number}/try/{share_query}",
        },
    }
    return render(
        request,
        "pages/replay.html",
        {
            "match": match, "hand": hand, "number": number, "config": config, "share_query": share_query,
            "review_data": reviews_for_page(match=match, user=request.user, hand=number),
            "previous": number - 1 if number > 1 else None,
            "next": number + 1 if number < match.hand_count else None,
        },
    )


def _managed(request: HttpRequest, match_id: int) -> Match:
    """The match for an owner-only page action: 404 unless readable, 403 unless managed."""
    match = selectors.match_for_reader(user=request.user, match_id=match_id, share=None)
    if match is None:
        raise Http404("no such match, or not yours to read")
    if not permissions.can_manage(request.user, match):
        raise PermissionDenied("only the match's owner may do this")
    return match


@login_required
@require_POST
def match_share_link(request: HttpRequest, match_id: int) -> HttpResponse:
    """Make a new share link (replacing the old one), or revoke it (``revoke``)."""
    match = _managed(request, match_id)
    if request.POST.get("revoke"):
        services.share_link_revoke(match=match)
        messages.success(request, "The share link is revoked: it opens nothing now.")
    else:
        services.share_link_rotate(match=match)
        messages.success(request, "A new share link is made: anyone holding it may read this match.")
    return redirect("match-detail", match_id=match.pk)


@login_required
@require_POST
def match_shared_with(request: HttpRequest, match_id: int) -> HttpResponse:
    """Share the match with a user by name, or stop sharing (``unshare``)."""
    match = _managed(request, match_id)
    username = (request.POST.get("username") or "").strip()
    user = User.objects.filter(username=username).first() if username and "\x00" not in username else None
    if user is None:
        messages.error(request, f"There is no user {username!r}." if username else "Give a username to share with.")
    elif request.POST.get("unshare"):
        services.match_unshare_with(match=match, user=user)
        messages.success(request, f"{user.username} no longer reads this match.")
    else:
        services.match_share_with(match=match, user=user)
        messages.success(request, f"Shared with {user.username}: they may read and review it.")
    return redirect("match-detail", match_id=match.pk)


@login_required
@require_POST
def match_delete(request: HttpRequest, match_id: int) -> HttpResponse:
    """Delete the match, once the owner ticked the confirmation."""
    match = _managed(request, match_id)
    if request.POST.get("confirm") != "yes":
        messages.error(request, "Tick the box to confirm that the match is to be deleted.")
        return redirect("match-detail", match_id=match.pk)
    services.match_delete(match=match)
    messages.success(request, f"Match {match_id} is deleted.")
    return redirect("match-list")


@login_required
def batch_detail(request: HttpRequest, batch_id: int) -> HttpResponse:
    batch = permissions.owned_batch(request.user, batch_id)
    if batch is None:
        raise Http404("no such batch of yours")
    progress = selectors.batch_progress(batch=batch)
    matches = batch.matches.with_status().defer("source").order_by("id")[:200]
    key = _duplicates_key(batch.pk)
    listed = request.session.get(key) or []
    statuses = selectors.match_statuses(match_ids=[d["id"] for d in listed])
    duplicates = [{**d, "status": statuses[d["id"]]} for d in listed if d["id"] in statuses]  # deleted since: left out
    rejected = request.session.get(_rejected_key(batch.pk)) or []
    return render(request, "pages/batch_detail.html", {
        "batch": batch, "progress": progress, "matches": matches,
        "duplicates": duplicates, "duplicate_count": request.session.get(key + "-count", len(listed)),
        "rejected": rejected, "rejected_count": request.session.get(_rejected_key(batch.pk) + "-count", len(rejected)),
    })


def docs_index(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/docs_index.html", {"docs": docs.doc_index()})


def doc_page(request: HttpRequest, name: str) -> HttpResponse:
    """One of the project's docs (pages/docs.py), rendered from its Markdown file."""
    page = docs.doc_page(name=name)
    if page is None:
        raise Http404(f"no doc {name!r}: the docs are {', '.join(docs.DOCS)}")
    return render(request, "pages/doc.html", {"doc": page, "docs": docs.doc_index()})
