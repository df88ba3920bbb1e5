from django.contrib import admin

from .models import SeatLuck


@admin.register(SeatLuck)
class SeatLuckAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "match", "hand", "seat", "side", "luck", "score", "draws", "unsearched")
    raw_id_fields = ("match",)
