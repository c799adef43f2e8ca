"""Admin batch jobs: `/admin/batch-jobs`. Jobs here
are made directly in the state a story needs; the work itself is in tests/jobs and tests/services."""

from datetime import datetime, timedelta, timezone

import pytest

from models import BatchJob, Job
from services.users.users import create_user

JOB_KEYS = {
    "id", "type", "created_by", "context", "result", "dry_run", "created_at", "updated_at", "deleted_at",
    "pre_processed_at", "processing_at", "confirmed_at", "completed_at", "canceled_at", "failed_at", "status",
}
NOT_YOURS = {"type": "not_allowed", "message": "Cannot access a batch job that does not belong to the logged in user"}


@pytest.fixture
async def other_headers(client):
    await create_user("member@test.com", "supersecret", role="member")
    r = await client.post("/admin/auth/token", json={"email": "member@test.com", "password": "supersecret"})
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


def _ago(minutes: int) -> datetime:
    return datetime.now(timezone.utc) - timedelta(minutes=minutes)


async def a_job(user_id: str, type_: str = "product-export", **milestones) -> BatchJob:
    return await BatchJob.create(type=type_, created_by=user_id, context={}, **milestones)


# ---------------------------------------------------------------- create

async def test_create_answers_201_with_a_created_job_of_the_caller_and_asks_for_pre_processing(client, admin_headers, admin):
    r = await client.post("/admin/batch-jobs", headers=admin_headers, json={"type": "product-export", "context": {}})
    assert r.status_code == 201
    job = r.json()["batch_job"]
    assert set(job) == JOB_KEYS
    assert job["id"].startswith("batch_") and job["created_by"] == admin.id
    assert (job["status"], job["dry_run"], job["result"]) == ("created", False, None)
    # Medusa's export rewrite: list keys become list_config
    assert job["context"] == {"list_config": {"skip": 0, "take": 50, "order": {"created_at": "DESC"}},
                              "filterable_fields": {}}
    assert await Job.filter(actor_name="pre_process_batch_job", args=[job["id"]]).count() == 1


@pytest.mark.parametrize("body, status, error", [
    ({}, 400, {"type": "invalid_data", "message": "type must be a string, context must be an object"}),
    ({"type": "order-import", "context": {}}, 404,
     {"type": "not_found", "message": "Unable to find a BatchJob strategy with the type order-import"}),
    ({"type": "product-import", "context": {}}, 400,
     {"type": "invalid_data", "message": "context.fileKey must be the key of an uploaded CSV file"}),
    ({"type": "product-import", "context": {"fileKey": "uploads/nothing.csv"}}, 400,
     {"type": "invalid_data", "message": "File with key uploads/nothing.csv was not found"}),
    ({"type": "product-export", "context": {}, "dry_run": "yes"}, 400,
     {"type": "invalid_data", "message": "dry_run must be a boolean value"}),
    ({"type": "product-export", "context": {}, "created_by": "usr_x"}, 400,
     {"type": "invalid_data", "message": "property created_by should not exist"}),
])
async def test_create_refuses_what_cannot_be_run(client, admin_headers, body, status, error):
    r = await client.post("/admin/batch-jobs", headers=admin_headers, json=body)
    assert (r.status_code, r.json()) == (status, error)
    assert await BatchJob.all().count() == 0


# ---------------------------------------------------------------- list

async def test_list_shows_only_the_callers_jobs_newest_first_ten_at_a_time(client, admin_headers, admin, other_headers):
    mine = [await a_job(admin.id) for _ in range(12)]
    member = await create_user("member2@test.com", "supersecret")
    await a_job(member.id)
    r = await client.get("/admin/batch-jobs", headers=admin_headers)
    body = r.json()
    assert r.status_code == 200 and (body["count"], body["offset"], body["limit"]) == (12, 0, 10)
    assert [j["id"] for j in body["batch_jobs"]] == [j.id for j in reversed(mine)][:10]
    assert all(set(j) == JOB_KEYS and j["created_by"] == admin.id for j in body["batch_jobs"])
    # the other user sees none of them
    assert (await client.get("/admin/batch-jobs", headers=other_headers)).json()["count"] == 0


async def test_list_filters_by_id_type_and_milestones_including_null(client, admin_headers, admin):
    done = await a_job(admin.id, completed_at=_ago(5), pre_processed_at=_ago(9))
    open_import = await a_job(admin.id, "product-import", pre_processed_at=_ago(2))
    failed = await a_job(admin.id, failed_at=_ago(1))

    async def ids(query: str) -> list[str]:
        r = await client.get(f"/admin/batch-jobs?{query}", headers=admin_headers)
        assert r.status_code == 200, r.json()
        return sorted(j["id"] for j in r.json()["batch_jobs"])

    assert await ids("completed_at=null") == sorted([open_import.id, failed.id])
    assert await ids("type[]=product-import") == [open_import.id]
    assert await ids(f"id[]={done.id},{failed.id}") == sorted([done.id, failed.id])
    since = _ago(4).isoformat().replace("+00:00", "Z")
    assert await ids(f"pre_processed_at[gt]={since}") == [open_import.id]
    assert await ids(f"failed_at[lte]={datetime.now(timezone.utc).timestamp()}") == [failed.id]
    assert await ids("order=created_at&limit=1") == [done.id]


@pytest.mark.parametrize("query, message", [
    ("created_by=usr_1", "property created_by should not exist"),
    ("status=completed", "property status should not exist"),
    ("completed_at=yesterday", "completed_at must be a date comparison (gt, gte, lt, lte) or null"),
    ("completed_at[gt]=soon", "gt must be a date (ISO 8601) or unix seconds"),
    ("order=context", "Order field context is not valid"),
    ("expand=products", "Requested relations [products] are not valid"),
])
async def test_list_refuses_unknown_filters_orders_and_relations(client, admin_headers, query, message):
    r = await client.get(f"/admin/batch-jobs?{query}", headers=admin_headers)
    assert r.status_code == 400 and message in r.json()["message"]


async def test_list_and_get_can_show_the_user_who_asked_and_only_some_fields(client, admin_headers, admin):
    job = await a_job(admin.id)
    listed = (await client.get("/admin/batch-jobs?expand=created_by_user&fields=id,type",
                               headers=admin_headers)).json()["batch_jobs"][0]
    assert set(listed) == {"id", "type", "created_at", "created_by_user", "status"}
    assert listed["created_by_user"]["email"] == "admin@test.com" and "password_hash" not in listed["created_by_user"]
    got = (await client.get(f"/admin/batch-jobs/{job.id}?expand=created_by_user", headers=admin_headers)).json()
    assert got["batch_job"]["created_by_user"]["id"] == admin.id


# ---------------------------------------------------------------- get, ownership

async def test_get_answers_the_callers_job_and_refuses_another_users_job(client, admin_headers, admin, other_headers):
    job = await a_job(admin.id, dry_run=True, result={"count": 3})
    r = await client.get(f"/admin/batch-jobs/{job.id}", headers=admin_headers)
    assert r.status_code == 200
    assert r.json()["batch_job"]["dry_run"] is True and r.json()["batch_job"]["result"] == {"count": 3}
    for action in ("get", "confirm", "cancel"):
        path = f"/admin/batch-jobs/{job.id}" + ("" if action == "get" else f"/{action}")
        r = await (client.get(path, headers=other_headers) if action == "get" else client.post(path, headers=other_headers))
        assert (r.status_code, r.json()) == (400, NOT_YOURS), action
    assert (await BatchJob.get(id=job.id)).status == "created"


async def test_a_missing_job_is_a_404(client, admin_headers):
    for path in ("/admin/batch-jobs/batch_missing", "/admin/batch-jobs/batch_missing/cancel"):
        r = await (client.get(path, headers=admin_headers) if path.endswith("missing") else client.post(path, headers=admin_headers))
        assert (r.status_code, r.json()) == (404, {"type": "not_found", "message": "Batch job with id batch_missing was not found"})


# ---------------------------------------------------------------- confirm, cancel

async def test_confirm_only_from_pre_processed_then_asks_for_processing(client, admin_headers, admin):
    waiting = await a_job(admin.id, dry_run=True, pre_processed_at=_ago(1))
    r = await client.post(f"/admin/batch-jobs/{waiting.id}/confirm", headers=admin_headers)
    assert r.status_code == 200 and r.json()["batch_job"]["status"] == "confirmed"
    assert await Job.filter(actor_name="process_batch_job", args=[waiting.id]).count() == 1
    for job in (await a_job(admin.id), waiting, await a_job(admin.id, pre_processed_at=_ago(2), canceled_at=_ago(1))):
        r = await client.post(f"/admin/batch-jobs/{job.id}/confirm", headers=admin_headers)
        assert (r.status_code, r.json()) == (400, {
            "type": "not_allowed", "message": "Cannot confirm processing for a batch job that is not pre processed"})
    assert await Job.filter(actor_name="process_batch_job").count() == 1


async def test_cancel_works_from_any_status_but_completed(client, admin_headers, admin):
    for milestones, status in (
        ({}, "canceled"), ({"pre_processed_at": _ago(3)}, "canceled"),
        ({"pre_processed_at": _ago(3), "confirmed_at": _ago(2), "processing_at": _ago(1)}, "canceled"),
        ({"canceled_at": _ago(1)}, "canceled"), ({"failed_at": _ago(1)}, "failed"),
    ):
        job = await a_job(admin.id, **milestones)
        r = await client.post(f"/admin/batch-jobs/{job.id}/cancel", headers=admin_headers)
        assert r.status_code == 200 and r.json()["batch_job"]["status"] == status, milestones
        assert isinstance(r.json()["batch_job"]["canceled_at"], str)
    done = await a_job(admin.id, completed_at=_ago(1))
    r = await client.post(f"/admin/batch-jobs/{done.id}/cancel", headers=admin_headers)
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": "Cannot cancel completed batch job"})
    assert (await BatchJob.get(id=done.id)).canceled_at is None
