"""Admin batch jobs: `/admin/batch-jobs`. A user sees only their own jobs."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, model_validator
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.web.auth import require_admin
from app.web.query import DateComparison, Filters, ParsedQuery, QuerySpec, StrList, parse_query
from app.web.responses import json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, parse_body
from models import BatchJob
from services.batch_jobs.lifecycle import (
    BatchJobFilter, cancel_batch_job, confirm_batch_job, create_batch_job, get_batch_job, list_batch_jobs,
)

bp = Blueprint("admin_batch_jobs", url_prefix="/batch-jobs")

MILESTONES = ("pre_processed_at", "confirmed_at", "processing_at", "completed_at", "canceled_at", "failed_at")
ORDER = ("id", "type", "created_at", "updated_at", *MILESTONES)


def _milestone(value: Any) -> Any:
    if isinstance(value, str) and value != "null":
        raise PydanticCustomError("invalid", "must be a date comparison (gt, gte, lt, lte) or null")
    return value


# `?completed_at=null`: not completed; `?completed_at[gt]=...`: completed since.
Milestone = Annotated[DateComparison | Literal["null"] | None, BeforeValidator(_milestone)]


class ListFilters(Filters):
    id: StrList = []
    type: StrList = []
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    pre_processed_at: Milestone = None
    confirmed_at: Milestone = None
    processing_at: Milestone = None
    completed_at: Milestone = None
    canceled_at: Milestone = None
    failed_at: Milestone = None

    def to_filter(self) -> BatchJobFilter:
        dates = {n: getattr(self, n) for n in ("created_at", "updated_at", *MILESTONES)}
        return BatchJobFilter(
            id=self.id, type=self.type,
            dates={n: v.model_dump() for n, v in dates.items() if isinstance(v, DateComparison)},
            unset=[n for n, v in dates.items() if v == "null"],
        )


LIST = QuerySpec(
    columns=COLUMNS[BatchJob], allowed_relations=("created_by_user",), allowed_order=ORDER,
    extra_fields=("status",), filters=ListFilters, default_limit=10,
)
ONE = LIST.one(filters=None)


class NewBatchJob(Body):
    type: str
    context: dict[str, Any]
    dry_run: bool = False

    @model_validator(mode="before")
    @classmethod
    def _absent_is_wrong_type(cls, data: Any) -> Any:
        # Medusa answers an empty body with "type must be a string, context must be an object".
        if isinstance(data, dict):
            data = {"type": None, "context": None, **data}
        return data


def _with_status(job: BatchJob, out: dict) -> None:
    if isinstance(job, BatchJob):
        out["status"] = job.status


def _one(job: BatchJob, q: ParsedQuery | None = None) -> dict:
    relations, fields = (q.relations, q.fields) if q else ((), None)
    return {"batch_job": dump_many([job], relations, fields, _with_status)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    user = await require_admin(request)
    jobs, count = await list_batch_jobs(user.id, q.filters.to_filter(), q.find())
    return json({"batch_jobs": dump_many(jobs, q.relations, q.fields, _with_status), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, NewBatchJob)
    user = await require_admin(request)
    return json(_one(await create_batch_job(user.id, body.type, body.context, body.dry_run)), status=201)


@bp.get("/<job_id:str>")
async def get(request: Request, job_id: str):
    q = parse_query(request.query_string, ONE)
    user = await require_admin(request)
    return json(_one(await get_batch_job(job_id, user.id, q.relations), q))


@bp.post("/<job_id:str>/confirm")
async def confirm(request: Request, job_id: str):
    user = await require_admin(request)
    return json(_one(await confirm_batch_job(job_id, user.id)))


@bp.post("/<job_id:str>/cancel")
async def cancel(request: Request, job_id: str):
    user = await require_admin(request)
    return json(_one(await cancel_batch_job(job_id, user.id)))
