from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from records import services
from records.models import Match


class Command(BaseCommand):
    help = "Load docs/examples/*.brn as public matches of the 'demo' account (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        demo, created = user_model.objects.get_or_create(username="demo")
        if created:
            demo.set_unusable_password()
            demo.save()
        files = [
            services.UploadedFile(path.name, path.read_bytes())
            for path in sorted((Path(settings.BASE_DIR) / "docs" / "examples").glob("*.brn"))
        ]
        stored = 0
        for upload in files:  # one by one: each is a user's own upload, verified straight away
            result = services.upload_create(owner=demo, files=[upload], visibility=Match.Visibility.PUBLIC)
            stored += sum(result.created)
        self.stdout.write(f"{stored} new example match(es) for 'demo' ({len(files)} examples)")
