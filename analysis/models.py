"""A finding of the engine's analysis, stored as a row: ``buraco.analysis.Finding.as_dict()``."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from django.db import models

from buraco.analysis import Finding as EngineFinding
from records.models import Match
from records.text import json_safe


class Finding(models.Model):
    """One judged decision, or one wrong claimed score, of one hand of a match.

    ``hand``, ``seat`` and ``side`` count from 1; ``ply`` (the action the finding is
    about) and ``seat`` are null for a scoring mistake, which belongs to a side's hand.
    ``witness`` is the better line as BRN action strings. All of a match's findings come
    from one run of one ``version``; rows are kept in the engine's order (by id).
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="findings")
    hand = models.PositiveIntegerField()
    ply = models.PositiveIntegerField(null=True, blank=True)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    side = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=32)
    points = models.BigIntegerField(null=True, blank=True)  # a claim may be off by up to 2 x 10**9 a side
    message = models.TextField()
    witness = models.JSONField(default=list, blank=True)
    cause = models.TextField(null=True, blank=True)
    causes = models.JSONField(default=list, blank=True)
    version = models.CharField(max_length=20)
    first_ply = models.PositiveIntegerField(null=True, blank=True)  # a run's first turn (a missed chance)
    last_ply = models.PositiveIntegerField(null=True, blank=True)  # and its last
    turns = models.PositiveIntegerField(default=1)
    outcome = models.CharField(max_length=10, null=True, blank=True)  # buraco.analysis.OUTCOMES
    severity = models.CharField(max_length=12, null=True, blank=True)  # buraco.analysis.SEVERITIES
    # Whose it is, for the findings explorer's player filter: the lower-cased names of its
    # seat's player (a side's players when it has no seat), each between newlines.
    players = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["match", "id"]
        indexes = [
            models.Index(fields=["match", "hand"], name="finding_match_hand"),
            models.Index(fields=["match", "kind"], name="finding_match_kind"),
            models.Index(fields=["points"], name="finding_points"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} in hand {self.hand} of match {self.match_id}"

    def as_engine(self) -> EngineFinding:
        """The engine's frozen value for this row."""
        return EngineFinding.from_dict({name: getattr(self, name) for name in FINDING_FIELDS})

    def as_dict(self) -> dict[str, Any]:
        """The keys of ``buraco.analysis.Finding.as_dict()``."""
        return self.as_engine().as_dict()

    @classmethod
    def of(cls, match: Match, finding: EngineFinding) -> Finding:
        """The unsaved row of an engine finding: a column per field of the engine's value."""
        return cls(**next(cls.rows_of(match, [finding])))

    @classmethod
    def rows_of(cls, match: Match, findings: Iterable[EngineFinding]) -> Iterator[dict[str, Any]]:
        """The columns of :meth:`of` for each of a match's findings, in their order, by
        attname (``records.bulk.rows_insert``'s rows). An analysis stores a dozen findings a
        hand, and their texts are the engine's own: each is scanned for a NUL at once (in its
        ``repr``, where one shows as an escape) rather than string by string."""
        players: dict[tuple[int | None, int], str] = {}
        for finding in findings:
            data = finding.as_dict()
            if "\\x00" in repr(data):
                data = json_safe(data)
            whose_key = (finding.seat, finding.side)
            if whose_key not in players:
                players[whose_key] = whose(match.players, match.sides, finding.seat, finding.side)
            yield {"match_id": match.pk, "players": players[whose_key], **{name: data[name] for name in FINDING_FIELDS}}


def player_key(name: str) -> str:
    """How ``Finding.players`` holds one name: ``players__contains=player_key(name)`` finds it.

    >>> player_key("Ana")
    '\\nana\\n'
    """
    return f"\n{json_safe(str(name)).lower()}\n"


def whose_players(players: list[str], sides: list[list[int]] | None, seat: int | None, side: int) -> list[str]:
    """The players a finding is about, as the record writes them: its seat's, or (a scoring
    mistake, which has no seat) each of its side's.

    >>> whose_players(["Ana", "Bo", "Cy", "Di"], [[1, 3], [2, 4]], None, 2)
    ['Bo', 'Di']
    >>> whose_players(["Ana", "Bo"], [[1], [2]], 1, 1)
    ['Ana']
    """
    seats = [seat] if seat else list((sides or [])[side - 1]) if 0 < side <= len(sides or []) else []
    return [str(players[s - 1]) for s in seats if 0 < s <= len(players)]


def whose(players: list[str], sides: list[list[int]] | None, seat: int | None, side: int) -> str:
    """``Finding.players`` of a finding about ``seat`` (or, without one, about ``side``).

    >>> whose(["Ana", "Bo", "Cy", "Di"], [[1, 3], [2, 4]], None, 2)
    '\\nbo\\n\\ndi\\n'
    """
    return "".join(player_key(name) for name in whose_players(players, sides, seat, side))


# A finding's fields: the engine's dataclass says them once (buraco.analysis.Finding); this
# model has a column for each, the serializer a field for each, the page's script reads them.
FINDING_FIELDS: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(EngineFinding))
