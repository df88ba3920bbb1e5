from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from records import services


class Command(BaseCommand):
    help = "Queue again every match verified by an older engine version (and failed ones) on the reverify queue."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--skip-failed", action="store_true", help="leave failed matches alone")

    def handle(self, *args: Any, **options: Any) -> None:
        count = services.matches_requeue_outdated(include_failed=not options["skip_failed"])
        self.stdout.write(f"queued {count} match(es) for verification by engine {services.ENGINE_VERSION}")
