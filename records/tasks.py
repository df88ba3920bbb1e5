"""Thin Celery tasks: they take ids and call one service."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import DatabaseError, InterfaceError, OperationalError

from . import services

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=120,
    time_limit=150,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def verify_match(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    """Replay one match and store its verdict (idempotent: a redelivered job is skipped)."""
    try:
        return services.match_verify(match_id=match_id)
    except SoftTimeLimitExceeded:
        services.match_fail(match_id=match_id, reason="verification ran past its time limit")
        return "failed"
    except (OperationalError, InterfaceError):
        # Transient: hand the job back (if the database lets us) and let Celery retry it.
        try:
            services.match_release(match_id=match_id)
        except DatabaseError:
            pass  # the claim's lease runs out instead
        raise
    except Exception as error:  # a bug must not leave the match "verifying" forever
        logger.exception("verifying match %s failed", match_id)
        services.match_fail(match_id=match_id, reason=f"{type(error).__name__}: {error}")
        return "failed"
