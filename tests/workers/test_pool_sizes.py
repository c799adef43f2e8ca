"""How many PostgreSQL connections each process opens at most: DATABASE_POOL_SIZE for a web
process, fewer for a `commerce worker` process (its threads' jobs and their heartbeats) and the
scheduler (its sweeps); `?maxsize=` on the URL still wins."""

import pytest

from app.config import ConfigError, Settings
from workers.scheduler import SCHEDULER_POOL_SIZE

URL = "postgres://shop:pw@db:5432/shop"


def _pool(settings: Settings, pool_size: int | None = None):
    return settings.tortoise_config(pool_size)["connections"]["default"]["credentials"]["maxsize"]


def test_database_pool_size_sizes_a_web_process_pool():
    assert _pool(Settings.from_env({"DATABASE_URL": URL})) == 10
    assert _pool(Settings.from_env({"DATABASE_URL": URL, "DATABASE_POOL_SIZE": "4"})) == 4


def test_a_worker_process_opens_a_connection_a_thread_and_two_for_heartbeats_within_the_setting():
    settings = Settings.from_env({"DATABASE_URL": URL, "DATABASE_POOL_SIZE": "20"})
    assert _pool(settings, settings.worker_pool_size(4)) == 6
    small = Settings.from_env({"DATABASE_URL": URL, "DATABASE_POOL_SIZE": "3"})
    assert _pool(small, small.worker_pool_size(4)) == 3


def test_the_scheduler_opens_one_connection_a_sweep_within_the_setting():
    assert _pool(Settings.from_env({"DATABASE_URL": URL}), SCHEDULER_POOL_SIZE) == SCHEDULER_POOL_SIZE
    assert _pool(Settings.from_env({"DATABASE_URL": URL, "DATABASE_POOL_SIZE": "2"}), SCHEDULER_POOL_SIZE) == 2


def test_the_pool_size_on_the_url_still_wins():
    settings = Settings.from_env({"DATABASE_URL": URL + "?maxsize=25", "DATABASE_POOL_SIZE": "4"})
    assert _pool(settings) == "25"


@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_pool_of_no_connection_is_refused(value):
    with pytest.raises(ConfigError, match="DATABASE_POOL_SIZE must be positive"):
        Settings.from_env({"DATABASE_POOL_SIZE": value})
