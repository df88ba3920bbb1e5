from django.contrib import admin

from .models import Comment, Reply, Review


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "match", "author_name", "source", "finished", "created_at")
    list_filter = ("source", "finished")
    raw_id_fields = ("match", "author")


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "review", "hand", "ply", "tag", "author_name", "created_at")
    list_filter = ("tag",)
    raw_id_fields = ("review", "author")


@admin.register(Reply)
class ReplyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "comment", "author", "created_at")
    raw_id_fields = ("comment", "author")
