"""GET /metrics: Prometheus text with the requests (by method, route template and status) and
the background work the database knows of; admin credentials required."""

from models import BatchJob, Job, WebhookDelivery
from services.core import clock


def _value(text: str, prefix: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix))


async def test_metrics_count_requests_by_route_and_show_the_work_in_flight(client, admin_headers):
    r = await client.get("/metrics")
    assert r.status_code == 401
    before = await client.get("/metrics", headers=admin_headers)
    seen = _value(before.text, 'commerce_http_requests_total{method="GET",route="/store/regions",status="200"}')
    for _ in range(3):
        assert (await client.get("/store/regions")).status_code == 200
    await client.get("/store/products/prod_missing")
    await Job.create(actor_name="send_notification", status="pending")
    await Job.create(actor_name="dispatch_event", status="succeeded", started_at=clock.now(), finished_at=clock.now())
    await BatchJob.create(type="product-export", created_by="usr_1", context={}, result={"advancement_count": 40})
    await WebhookDelivery.create(event_id="evt_1", event_name="order.placed", endpoint_id="we_1", status="retrying")
    r = await client.get("/metrics", headers=admin_headers)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    assert _value(text, 'commerce_http_requests_total{method="GET",route="/store/regions",status="200"}') == seen + 3
    assert 'route="/store/products/<product_id:str>",status="404"' in text and "prod_missing" not in text
    assert 'commerce_http_request_duration_seconds_bucket{le="0.1",method="GET",route="/store/regions"}' in text
    assert "commerce_http_requests_in_flight" in text
    assert _value(text, 'commerce_jobs{actor="send_notification",status="pending"}') == 1
    assert _value(text, 'commerce_job_duration_seconds_count{actor="dispatch_event",outcome="succeeded"}') == 1
    assert _value(text, "commerce_outbox_waiting ") == _value(before.text, "commerce_outbox_waiting ") + 1 and _value(text, "commerce_outbox_oldest_waiting_seconds") >= 0
    assert _value(text, 'commerce_batch_job_rows_processed_total{type="product-export"}') == 40
    assert _value(text, 'commerce_webhook_deliveries{status="retrying"}') == 1
    assert "commerce_events_undispatched" in text
