from django.apps import AppConfig


class RecordsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "records"
    verbose_name = "Match records"

    def ready(self) -> None:
        from . import jobs, services, tasks
        from .models import Job

        jobs.register_chunk_task(tasks.run_chunk)
        jobs.register_kind(Job.Kind.VERIFY, tasks.verify_match,
                           chunk_work=lambda match_id: services.match_verify(match_id=match_id))
