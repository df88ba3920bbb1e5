from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analysis"
    verbose_name = "Match analysis"

    def ready(self) -> None:
        from records import jobs, signals
        from records.models import Job

        from . import services, tasks

        jobs.register_kind(Job.Kind.ANALYZE, tasks.analyze_match)
        signals.verdict_stored.connect(services.analysis_queue_after_verdict, dispatch_uid="analysis-after-verdict")
