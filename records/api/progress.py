"""Progress: a batch's, the queues' and the service's health."""

from __future__ import annotations

from drf_spectacular.utils import (
    extend_schema,
)
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.errors import ANY, errors
from records import permissions, selectors

from .shapes import BatchProgressSerializer, QueueStatusSerializer


class BatchDetailApi(APIView):
    @extend_schema(summary="A batch's progress: its verification and its analysis (owner only)",
                   responses={200: BatchProgressSerializer, **errors(*ANY, 404)})
    def get(self, request: Request, batch_id: int) -> Response:
        batch = permissions.owned_batch(request.user, batch_id)
        if batch is None:
            raise exceptions.NotFound(f"no batch {batch_id} of yours")
        return Response(selectors.batch_progress(batch=batch))


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
