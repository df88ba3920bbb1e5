"""Settings, all from the environment.

Embedded default: no variables at all gives SQLite and in-process tasks.
``DATABASE_URL`` and ``CELERY_BROKER_URL`` switch to PostgreSQL and a Redis
broker with real workers. ``BURACO_ENV=production`` turns DEBUG off and the
security settings on (``manage.py check --deploy`` passes); it then needs
``SECRET_KEY`` and ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    return [item.strip() for item in value.split(",") if item.strip()] if value else default


PRODUCTION = os.environ.get("BURACO_ENV", "development") == "production"
DEBUG = env_bool("DEBUG", not PRODUCTION)

NEW_KEY_COMMAND = "python -c 'from django.core.management.utils import get_random_secret_key; print(get_random_secret_key())'"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if PRODUCTION and not SECRET_KEY:
    raise ImproperlyConfigured(f"BURACO_ENV=production needs SECRET_KEY: set it to a random string, e.g. from {NEW_KEY_COMMAND}")
if PRODUCTION and (len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-")):
    # As `manage.py check --deploy` judges a key (security.W009), refused instead of warned.
    raise ImproperlyConfigured(
        "BURACO_ENV=production refuses a weak SECRET_KEY: set it to at least 50 random characters "
        f"(at least 5 different ones, not django-insecure-...), e.g. from {NEW_KEY_COMMAND}"
    )
if not SECRET_KEY:
    SECRET_KEY = "development-only-key-not-for-production-4f9c2b7e1d8a6f3c5e0b9a7d2c4f6e8a1b3d5f7c9e"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost", "testserver", "[::1]"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured(
        "BURACO_ENV=production needs ALLOWED_HOSTS: set it to the site's host names, comma-separated "
        "(e.g. ALLOWED_HOSTS=records.example.org,www.records.example.org)"
    )
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from here: the docs page needs no CDN
    "django_filters",
    "accounts",
    "records",
    "analysis",
    "luck",  # above records and analysis: the luck of the draws, after the analysis
    "reviews",
    "training",
    "pages",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    *(["whitenoise.middleware.WhiteNoiseMiddleware"] if PRODUCTION else []),
    "records.authentication.RefuseBadSessionCookie",  # before the session is read
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "buraco_site.urls"
WSGI_APPLICATION = "buraco_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# An empty DATABASE_URL is the default (SQLite) in development; in production a clear error.
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
if PRODUCTION and "DATABASE_URL" in os.environ and not DATABASE_URL:
    raise ImproperlyConfigured(
        "BURACO_ENV=production has DATABASE_URL set but empty: set it to the database's URL "
        "(e.g. postgres://user:pass@host:5432/buraco), or unset it for SQLite db.sqlite3"
    )
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default has two writers: the web process's requests and its job thread
    # (records/jobs.py), and often a third, `manage.py load_examples` or a shell. SQLite's
    # defaults made them fail each other with "database is locked" (`make run` failed 2 of 4
    # fresh tries). So:
    # - write-ahead log: readers never wait for the writer, nor the writer for readers;
    # - immediate transactions: a transaction takes the write lock when it begins, so two
    #   that read and then write cannot deadlock half-way (a deferred one cannot wait for
    #   the lock it upgrades to: SQLite answers "locked" at once);
    # - a busy timeout: a writer waits up to 20 s for the other's commit instead of failing.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "match-list"
LOGOUT_REDIRECT_URL = "match-list"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Uploads: a zip of thousands of records is a normal bulk upload.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("UPLOAD_MAX_BYTES", str(64 * 1024 * 1024)))
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
DATA_UPLOAD_MAX_NUMBER_FILES = 10_000
BURACO_MAX_UPLOAD_RECORDS = int(os.environ.get("BURACO_MAX_UPLOAD_RECORDS", "20000"))
# One record: the largest the notation's limits allow (200 hands of 2,000 actions) is about
# 8 MB of TOML; reading runs at about 9 MB a second (loads, one core), so no file may ask for more.
BURACO_MAX_RECORD_BYTES = int(os.environ.get("RECORD_MAX_BYTES", str(16 * 1024 * 1024)))
# Comments a match holds, over all its reviews (a record's notes become comments, so a record
# holds at most this many notes): every reader of a replay page gets its hand's comments.
BURACO_MAX_COMMENTS_PER_MATCH = int(os.environ.get("MAX_COMMENTS_PER_MATCH", "2000"))

# Rate limits (apikit/throttling.py), per account or else per address, counted in the cache:
# set CACHE_URL=redis://... when several processes serve the site, so that they share the counts.
BURACO_THROTTLE_RATES = {
    # Log-in attempts per address, /api/auth/token/ and the log-in page counted together.
    "login": os.environ.get("THROTTLE_LOGIN", "30/min"),
    # Failed log-ins per account, from any address: guessing one account's password from many.
    "login-failures": os.environ.get("THROTTLE_LOGIN_FAILURES", "20/hour"),
    "signup": os.environ.get("THROTTLE_SIGNUP", "50/hour"),  # /api/auth/signup/ and /signup/, per address
    "upload": os.environ.get("THROTTLE_UPLOAD", "120/min"),  # uploads (API and page)
    "try": os.environ.get("THROTTLE_TRY", "60/min"),  # POST .../try/ (another play from a ply)
    "review": os.environ.get("THROTTLE_REVIEW", "120/min"),  # review, comment and reply writes
}
CACHE_URL = os.environ.get("CACHE_URL", "").strip()
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
    if CACHE_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "records.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    # One content type per JSON body, as the schema says: an operation that reads another
    # (uploads; sign-up and tokens also take curl's form) names its parsers.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",  # the tests' APIClient sends what the API reads
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "apikit.errors.exception_handler",
    # How many proxies of the site's own stand in front of it and append to X-Forwarded-For
    # (apikit/throttling.py): 0 takes the connection's address, so that a made-up header
    # never changes who a rate limit counts.
    "NUM_PROXIES": int(os.environ.get("TRUSTED_PROXIES", "0")),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Buraco records API",
    "DESCRIPTION": "Upload Buraco/Burraco records (BRN), get them verified by the rules engine, replay them.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "VisibilityEnum": "records.models.Match.Visibility",
        "MatchStatusEnum": "records.models.Match.Status",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apikit.schema.with_links_and_required_bodies",
        "records.api.engine_schema.with_engine_components",
    ],
}

# Jobs go to a broker and its workers ("broker"), or run in this process ("embedded": no
# CELERY_BROKER_URL). The one place the mode is decided; records.jobs.embedded() reads it.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
BURACO_JOBS = "broker" if CELERY_BROKER_URL else "embedded"
CELERY_TASK_ALWAYS_EAGER = BURACO_JOBS == "embedded"
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "interactive"
# Redis checks the queues in the order a worker lists them: a user's own upload first.
CELERY_BROKER_TRANSPORT_OPTIONS = {"queue_order_strategy": "priority", "visibility_timeout": 3600}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery's Django fixup closes the database connection around every task unless told
# to reuse it: bench/ingest.py saw 2,198 new PostgreSQL sessions for 2,000 jobs.
CELERY_DB_REUSE_MAX = int(os.environ.get("CELERY_DB_REUSE_MAX", "1000"))
# Every worker lists them in this order (make worker, README): analysis runs below a user's
# own uploads and batches, re-checks after an engine upgrade below it, the luck of the draws
# (luck/, after each analysis) last.
BURACO_QUEUES = ("interactive", "bulk", "analysis", "reverify", "luck")
# A broker that is down must not hold the upload's answer: two quick tries, then the job
# waits in the outbox (records/jobs.py) for the sweep.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# Jobs (records/jobs.py). No broker: "thread" runs them after the response in a thread of
# the web process; "inline" runs them in the request (the service tests' mode).
BURACO_EMBEDDED_JOBS = os.environ.get("EMBEDDED_JOBS", "thread")
if BURACO_EMBEDDED_JOBS not in ("thread", "inline"):
    raise ImproperlyConfigured(f"EMBEDDED_JOBS is 'thread' or 'inline', not {BURACO_EMBEDDED_JOBS!r}")
BURACO_JOB_LEASE_SECONDS = int(os.environ.get("JOB_LEASE_SECONDS", "300"))  # above every task's time limit
# A batch's quick jobs (verify) go this many to a message: a message cost a worker 2.6 ms, a
# 5-hand verify about 10 (docs/benchmarks.md, "Service ingest").
BURACO_JOB_CHUNK = int(os.environ.get("JOB_CHUNK", "20"))
BURACO_OUTBOX_GRACE_SECONDS = int(os.environ.get("OUTBOX_GRACE_SECONDS", "30"))
BURACO_REDELIVER_SECONDS = int(os.environ.get("REDELIVER_SECONDS", "1800"))
BURACO_SWEEP_SECONDS = float(os.environ.get("SWEEP_SECONDS", "60"))
# With no broker, the web process's job threads (records.jobs.EmbeddedRunner), one per lane:
# verification apart from analysis, so that an analysis never holds back anyone's verdict.
BURACO_EMBEDDED_LANES = (("interactive", "bulk", "reverify"), ("analysis", "luck"))  # luck after every analysis
BURACO_EMBEDDED_POLL_SECONDS = float(os.environ.get("EMBEDDED_POLL_SECONDS", "1"))
# A batch's event stream (GET /api/batches/{id}/events/): how often it looks, how long it lasts
# before the client reconnects (it holds a web worker meanwhile).
# The analysis's CPU budgets (buraco.analysis.analyze_record), seconds: one hand's turn searches,
# and the whole match's. A cut analysis keeps what it found and says which decisions it left
# (the match's analysis is "partial"); the task's own time limit stays well above them.
BURACO_ANALYSIS_HAND_SECONDS = float(os.environ.get("ANALYSIS_HAND_SECONDS", "10"))
BURACO_ANALYSIS_MATCH_SECONDS = float(os.environ.get("ANALYSIS_MATCH_SECONDS", "120"))
# The luck job's CPU budget for a whole match, seconds (buraco.analysis.luck.match_luck): the
# draws left when it runs out are stored unjudged and counted, never dropped.
BURACO_LUCK_MATCH_SECONDS = float(os.environ.get("LUCK_MATCH_SECONDS", "120"))
BURACO_EVENTS_POLL_SECONDS = float(os.environ.get("EVENTS_POLL_SECONDS", "1"))
BURACO_EVENTS_MAX_SECONDS = float(os.environ.get("EVENTS_MAX_SECONDS", "600"))
# The sweep runs under Celery beat: one beat per site (`make worker` embeds one with -B).
CELERY_BEAT_SCHEDULE = {
    "sweep-stranded-jobs": {
        "task": "records.tasks.sweep_jobs",
        "schedule": BURACO_SWEEP_SECONDS,
        "options": {"queue": "interactive", "expires": BURACO_SWEEP_SECONDS},
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    X_FRAME_OPTIONS = "DENY"
