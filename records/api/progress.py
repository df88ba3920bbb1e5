"""Progress: a batch's (and its events as they come), the queues' and the service's health."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, renderers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import ANY, errors
from records import permissions, selectors
from records.models import Batch

from .shapes import BatchProgressSerializer, QueueStatusSerializer


class BatchDetailApi(APIView):
    @extend_schema(summary="A batch's progress: its verification and its analysis (owner only)",
                   responses={200: BatchProgressSerializer, **errors(*ANY, 404)})
    def get(self, request: Request, batch_id: int) -> Response:
        batch = permissions.owned_batch(request.user, batch_id)
        if batch is None:
            raise exceptions.NotFound(f"no batch {batch_id} of yours")
        return Response(selectors.batch_progress(batch=batch))


class EventStreamRenderer(renderers.BaseRenderer):
    """Lets a client ask for ``text/event-stream`` (the view streams the events itself)."""

    media_type = "text/event-stream"
    format = "events"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return json.dumps(data).encode()


# One server-sent event of the stream (its fields as the stream writes them): `data` is JSON.
SERVER_EVENT = {
    "type": "object",
    "properties": {
        "event": {"type": "string", "enum": ["progress", "verdict", "analysis", "finished"]},
        "data": {"type": "string", "description": "JSON: {match, status} for a verdict or an analysis; the "
                                                  "batch's progress for progress and finished"},
        "id": {"type": "string"},
        "retry": {"type": "integer"},
    },
}


class BatchEventsApi(APIView):
    renderer_classes = [EventStreamRenderer]  # (an error before the stream is JSON: apikit.errors)

    @extend_schema(
        summary="A batch's verdicts and analyses as they finish: server-sent events (owner only)",
        description=(
            "A `text/event-stream`: `verdict` (`{match, status}`: verified, invalid or failed) and `analysis` "
            "(`{match, status}`: done or failed) as each finishes, in that order, each with an `id`; `progress` "
            "(the batch's progress, as GET /api/batches/{id}/) after every change; `finished` once every verdict's "
            "analysis is done, and the stream ends. A client that reconnects sends `Last-Event-ID` and gets what "
            "came after it. The stream also ends after `BURACO_EVENTS_MAX_SECONDS` (reconnect to go on)."
        ),
        parameters=[OpenApiParameter("Last-Event-ID", {"type": "integer", "minimum": 0}, OpenApiParameter.HEADER,
                                     description="the id of the last event received: the stream resumes after it")],
        responses={(200, "text/event-stream"): SERVER_EVENT, **errors(*ANY, 404)},
    )
    def get(self, request: Request, batch_id: int) -> StreamingHttpResponse:
        batch = permissions.owned_batch(request.user, batch_id)
        if batch is None:
            raise exceptions.NotFound(f"no batch {batch_id} of yours")
        after = request.headers.get("Last-Event-ID") or "0"
        if not after.isdigit():
            raise exceptions.ValidationError({"Last-Event-ID": ["the id of an event: a whole number"]})
        response = StreamingHttpResponse(_batch_stream(batch, int(after)),
                                         content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # a proxy in front must not hold the events back
        return response


def _event(name: str, data: Any, ident: int | None = None) -> bytes:
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data, default=str)}\n\n".encode()


def _batch_stream(batch: Batch, sent: int) -> Iterator[bytes]:
    """The batch's events after the ``sent`` first, polled every ``BURACO_EVENTS_POLL_SECONDS``."""
    # (Its database connection is closed as every request's is, when the server closes the
    # response after the last event: request_finished.)
    deadline = time.monotonic() + settings.BURACO_EVENTS_MAX_SECONDS
    yield b"retry: 2000\n\n"
    progress = selectors.batch_progress(batch=batch)
    yield _event("progress", progress)
    while True:
        events = selectors.batch_events(batch=batch)
        if len(events) > sent:
            for ident, event in enumerate(events[sent:], start=sent + 1):
                yield _event(event["event"], {"match": event["match"], "status": event["status"]}, ident)
            sent = len(events)
            progress = selectors.batch_progress(batch=batch)
            yield _event("progress", progress)
        if progress["analysis_finished"]:
            yield _event("finished", progress)
            return
        if time.monotonic() > deadline:
            return
        time.sleep(settings.BURACO_EVENTS_POLL_SECONDS)


class StatusApi(APIView):
    @extend_schema(
        summary="Queue depths and the oldest waiting job; counts of the matches you may read",
        responses={200: QueueStatusSerializer, **errors(*ANY)},
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.queue_status(user=request.user))


class HealthApi(APIView):
    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response({"ok": True})
