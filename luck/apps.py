from django.apps import AppConfig


class LuckConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "luck"
    verbose_name = "Luck of the draws"

    def ready(self) -> None:
        from analysis import extras
        from analysis.signals import analysis_stored
        from records import jobs

        from . import selectors, services, tasks

        jobs.register_kind(services.LUCK_KIND, tasks.luck_match)
        analysis_stored.connect(services.luck_queue_after_analysis, dispatch_uid="luck-after-analysis")
        extras.HAND_EXTRAS["luck"] = selectors.hand_luck_answer
        extras.PLAYER_EXTRAS["luck"] = selectors.player_luck
