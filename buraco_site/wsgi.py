import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "buraco_site.settings")
application = get_wsgi_application()

# With no broker, the jobs run in a thread of this process (records/jobs.py).
from records.jobs import embedded_start  # noqa: E402 - needs the apps loaded above

embedded_start()
