from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reviews"
    verbose_name = "Coaching reviews"

    def ready(self) -> None:
        from records import signals

        from . import services

        signals.matches_stored.connect(services.reviews_of_stored_notes, dispatch_uid="reviews-of-notes")
        signals.game_stored_again.connect(services.review_of_notes_again, dispatch_uid="reviews-of-notes-again")
