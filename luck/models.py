"""The luck of a match's stock draws (buraco.analysis.luck), stored per hand and seat and per draw.

All of a match's rows come from one run of its ``luck`` job (its ``Job.result`` says how many
draws were judged and how many the CPU budget left). Luck is kept exact enough as a float
(the engine's is a Fraction); the API rounds it to 0.01 points.
"""

from __future__ import annotations

from django.db import models

from records.models import Match


class SeatLuck(models.Model):
    """One seat's luck in one hand: the sum over its judged draws, beside its side's score."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="luck_seats")
    hand = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    side = models.PositiveSmallIntegerField()  # from 1
    luck = models.FloatField()
    score = models.BigIntegerField()  # the side's score of the hand as replayed (as it stands if unfinished)
    draws = models.PositiveIntegerField()  # stock draws judged
    unsearched = models.PositiveIntegerField()  # stock draws the CPU budget left unjudged

    class Meta:
        ordering = ["match", "hand", "seat"]
        constraints = [models.UniqueConstraint(fields=["match", "hand", "seat"], name="one_luck_per_seat_hand")]

    def __str__(self) -> str:
        return f"luck of p{self.seat} in hand {self.hand} of match {self.match_id}"


class DrawLuck(models.Model):
    """One stock draw: the card's value, the unseen cards' mean, their difference (null: unjudged)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="luck_draws")
    hand = models.PositiveIntegerField()
    ply = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    card = models.CharField(max_length=4)
    value = models.IntegerField(null=True)
    expected = models.FloatField(null=True)
    luck = models.FloatField(null=True)
    low = models.IntegerField(null=True)
    high = models.IntegerField(null=True)
    unseen = models.PositiveIntegerField()
    judged = models.BooleanField(default=True)

    class Meta:
        ordering = ["match", "hand", "ply"]
        indexes = [models.Index(fields=["match", "hand"], name="luck_draw_match_hand")]

    def __str__(self) -> str:
        return f"draw at ply {self.ply} of hand {self.hand} of match {self.match_id}"
