"""What analysis announces, so that the apps above it act on a match without analysis knowing
them (luck queues its job once the findings are stored; training moves its puzzles onto a
new analysis's findings). Sent inside the transaction that
stored what it announces, as records.signals are.
"""

from __future__ import annotations

from django.dispatch import Signal

# A match's findings were stored (its analysis job is done): ``match_id``.
analysis_stored = Signal()

# A match analysed again: its new findings are stored, its old ones not yet deleted.
# ``match_id``; ``successors``: each old finding's id -> the id of the new finding that is the
# same chance (analysis.services.finding_successors); an old finding without one is gone. Rows
# of other apps still pointing at an old finding once the receivers return are deleted with it.
findings_replaced = Signal()
