from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import Batch, Hand, Job, Match


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "variant", "owner", "status", "visibility", "hand_count", "created_at")
    list_filter = ("valid", "variant", "visibility")
    search_fields = ("player_names", "filename", "sha256")
    exclude = ("source",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return super().get_queryset(request).with_status()  # type: ignore[attr-defined, no-any-return]

    @admin.display(ordering="status")
    def status(self, match: Any) -> str:
        return str(match.status)


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "match", "kind", "status", "queue", "attempts", "enqueued_at", "finished_at", "version")
    list_filter = ("kind", "status", "queue")
    raw_id_fields = ("match",)


admin.site.register(Batch)
admin.site.register(Hand)
