from django.apps import AppConfig


class TrainingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "training"
    verbose_name = "Training from one's mistakes"

    def ready(self) -> None:
        from analysis.signals import findings_replaced

        from . import services

        findings_replaced.connect(services.puzzles_follow_findings, dispatch_uid="puzzles-follow-findings")
