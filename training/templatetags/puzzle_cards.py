"""A card as the puzzle page writes it: "7♥", with its suit for the colour and its name for
screen readers (the replay's cards.js draws the same four colours)."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

SUITS = {"c": ("\u2663", "clubs"), "d": ("\u2666", "diamonds"), "h": ("\u2665", "hearts"), "s": ("\u2660", "spades")}
RANKS = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}


@register.filter
def card(text: str) -> SafeString:
    text = str(text)
    if text.upper() == "JK":
        return format_html('<span class="pz-card pz-joker" title="{}">JK</span>', "joker")
    rank, suit = text[:-1], text[-1:].lower()
    symbol, name = SUITS.get(suit, (suit, suit))
    shown = "10" if rank == "T" else rank
    return format_html('<span class="pz-card pz-{}" title="{} of {}">{}{}</span>', suit, RANKS.get(rank, rank), name,
                       shown, symbol)
