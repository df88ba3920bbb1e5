from django.contrib import admin

from .models import Batch, Hand, Match


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "variant", "owner", "status", "visibility", "hand_count", "created_at")
    list_filter = ("status", "variant", "visibility")
    search_fields = ("player_names", "filename", "sha256")
    exclude = ("source",)


admin.site.register(Batch)
admin.site.register(Hand)
