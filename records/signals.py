"""What records announces, so that the apps above it act on a match without records knowing
them (analysis queues its job after a verdict; reviews reads a record's notes). Every signal is
sent inside the transaction that stored what it announces: a receiver's writes commit or roll
back with it.
"""

from __future__ import annotations

from django.dispatch import Signal

# New matches were stored: ``matches`` (Match rows) and ``records`` (their buraco Records), in order.
matches_stored = Signal()

# An upload held a game the owner had stored before: ``match`` and this upload's ``record``.
# A receiver may answer the id of a review it made of the record's notes.
game_stored_again = Signal()

# A match's verdict was stored (a new one, or again after a reverify): ``match_id``.
verdict_stored = Signal()
