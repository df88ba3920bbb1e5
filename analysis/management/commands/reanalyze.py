from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from analysis import services
from buraco.analysis import ANALYSIS_VERSION


class Command(BaseCommand):
    help = (
        "Queue again the analysis of every verified match whose findings come from an older analysis "
        "version, or that was never analysed (and failed analyses), on the analysis queue."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--skip-failed", action="store_true", help="leave failed analyses alone")

    def handle(self, *args: Any, **options: Any) -> None:
        count = services.analyses_requeue_outdated(include_failed=not options["skip_failed"])
        self.stdout.write(f"queued {count} match(es) for analysis version {ANALYSIS_VERSION}")
