"""``{% load players %}``: a player's name as a link to their page, whatever it holds."""

from __future__ import annotations

from urllib.parse import quote

from django import template

register = template.Library()


@register.filter
def player_url(name: object) -> str:
    """The player page of ``name`` (any character: a slash or a space is quoted).

    >>> player_url("Ana M/2")
    '/players/Ana%20M%2F2/'
    """
    return f"/players/{quote(str(name), safe='')}/"
