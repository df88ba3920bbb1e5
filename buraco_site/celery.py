"""The Celery app. Workers: ``celery -A buraco_site worker -Q interactive,bulk,analysis,reverify,luck``.

With no ``CELERY_BROKER_URL`` the settings make tasks run in process (eager),
so a newcomer needs no broker.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "buraco_site.settings")

app = Celery("buraco_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
