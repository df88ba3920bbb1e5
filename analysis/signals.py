"""What analysis announces, so that the apps above it act on a match without analysis knowing
them (luck queues its job once the findings are stored). Sent inside the transaction that
stored what it announces, as records.signals are.
"""

from __future__ import annotations

from django.dispatch import Signal

# A match's findings were stored (its analysis job is done): ``match_id``.
analysis_stored = Signal()
