from django.contrib import admin

from .models import Finding


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "match", "hand", "ply", "seat", "side", "kind", "points", "version")
    list_filter = ("kind", "version")
    raw_id_fields = ("match",)
