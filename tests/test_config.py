"""Settings read from the environment: safe defaults for a newcomer, refusals in production."""

import pytest

from app.config import DEFAULT_SECRET, MAX_CACHED_STATEMENT_BYTES, ConfigError, Settings, tortoise_config

SECRET = "k3J9-vQz8_Lp2wXr7TnB5mYc-Hd4sW1aZ6"  # long and random enough for production
PRODUCTION = {"COMMERCE_ENV": "production", "COOKIE_SECRET": SECRET, "JWT_SECRET": SECRET[::-1]}


def test_an_empty_environment_gives_the_embedded_sqlite_store():
    s = Settings.from_env({})
    assert s.env == "development" and not s.production
    assert s.database_url == "sqlite://commerce.sqlite3" and not s.is_postgres
    assert s.redis_url is None and s.embedded
    assert s.cookie_secret == s.jwt_secret == DEFAULT_SECRET
    assert s.store_cors == ("http://localhost:8000", "http://127.0.0.1:8000")
    assert s.session_ttl == 36_000 and s.max_body_bytes == 1_000_000


def test_the_dashboard_served_here_needs_no_cors_entry_and_gets_a_same_site_strict_cookie():
    s = Settings.from_env({})
    assert s.dashboard.enabled and s.dashboard.path == "/app"
    assert s.admin_cors == ()
    assert (s.cookie_secure, s.cookie_samesite) == (False, "Strict")
    assert s.admin_url == "http://localhost:9000/app"  # the team's links (invites, resets) lead here
    assert Settings.from_env({"BACKEND_URL": "https://shop.example/"}).admin_url == "https://shop.example/app"
    assert Settings.from_env({"DASHBOARD_PATH": "/back-office"}).admin_url == "http://localhost:9000/back-office"


def test_a_dashboard_hosted_elsewhere_keeps_the_separate_origin_defaults():
    s = Settings.from_env({"DASHBOARD": "false"})
    assert not s.dashboard.enabled
    assert s.admin_cors == ("http://localhost:7000", "http://localhost:7001")
    assert (s.cookie_secure, s.cookie_samesite) == (False, "Lax")
    assert s.admin_url == "http://localhost:7001"
    # and each can be set with the dashboard served here too
    s = Settings.from_env({"ADMIN_CORS": "https://admin.example", "COOKIE_SAMESITE": "Lax",
                           "ADMIN_URL": "https://admin.example"})
    assert (s.admin_cors, s.cookie_samesite, s.admin_url) == (("https://admin.example",), "Lax", "https://admin.example")


def test_dashboard_settings_come_from_the_environment(tmp_path):
    s = Settings.from_env({"DASHBOARD_PATH": "/back-office", "DASHBOARD_DIR": str(tmp_path / "b"),
                           "DASHBOARD_CACHE_DIR": str(tmp_path / "c"), "DASHBOARD_AUTOBUILD": "0"})
    assert (s.dashboard.path, s.dashboard.dir, s.dashboard.cache_dir, s.dashboard.autobuild) == (
        "/back-office", str(tmp_path / "b"), str(tmp_path / "c"), False)
    s = Settings.from_env({"XDG_DATA_HOME": "/data", "XDG_CACHE_HOME": "/cache"})
    assert (s.dashboard.dir, s.dashboard.cache_dir) == ("/data/commerce/dashboard", "/cache/commerce/dashboard")


@pytest.mark.parametrize("path,message", [
    ("app", "must look like /app"), ("/app/", "must look like /app"), ("/", "must look like /app"),
    ("/a/../b", "must look like /app"), ("/admin", "starts like the API's"), ("/storefront", "starts like the API's"),
])
def test_a_dashboard_path_that_cannot_be_served_is_refused(path, message):
    with pytest.raises(ConfigError, match=message):
        Settings.from_env({"DASHBOARD_PATH": path})
    Settings.from_env({"DASHBOARD_PATH": path, "DASHBOARD": "false"})  # not served: not checked


def test_without_an_argument_the_process_environment_is_read(monkeypatch):
    for name in ("COMMERCE_ENV", "COOKIE_SAMESITE", "COOKIE_SECURE", "SESSION_TTL", "MAX_BODY_BYTES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REDIS_URL", "redis://cache.internal:6379/2")
    monkeypatch.setenv("STORE_CORS", "https://shop.example")
    s = Settings.from_env()
    assert s.redis_url == "redis://cache.internal:6379/2"
    assert s.store_cors == ("https://shop.example",)


def test_redis_url_turns_off_the_embedded_mode():
    s = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6379/0"})
    assert s.redis_url == "redis://127.0.0.1:6379/0" and not s.embedded
    assert Settings.from_env({"REDIS_URL": ""}).embedded


def test_database_url_is_taken_as_given():
    s = Settings.from_env({"DATABASE_URL": "postgres://shop:pw@db:5432/shop"})
    assert s.database_url == "postgres://shop:pw@db:5432/shop" and s.is_postgres
    assert Settings.from_env({"DATABASE_URL": ""}).database_url == "sqlite://commerce.sqlite3"


@pytest.mark.parametrize("environ,weak", [
    ({}, "COOKIE_SECRET, JWT_SECRET"),
    ({"COOKIE_SECRET": DEFAULT_SECRET, "JWT_SECRET": DEFAULT_SECRET}, "COOKIE_SECRET, JWT_SECRET"),
    ({"COOKIE_SECRET": SECRET}, "JWT_SECRET"),
    ({"COOKIE_SECRET": "short", "JWT_SECRET": SECRET}, "COOKIE_SECRET"),
    ({"COOKIE_SECRET": SECRET, "JWT_SECRET": "x" * 31}, "JWT_SECRET"),
])
def test_production_refuses_default_or_short_secrets(environ, weak):
    with pytest.raises(ConfigError) as e:
        Settings.from_env({"COMMERCE_ENV": "production", **environ})
    assert f"set {weak} to random values" in str(e.value)


def test_production_accepts_long_random_secrets_and_secures_the_cookie():
    s = Settings.from_env(PRODUCTION)
    assert s.production
    assert (s.cookie_secret, s.jwt_secret) == (SECRET, SECRET[::-1])
    assert (s.cookie_secure, s.cookie_samesite) == (True, "None")
    assert Settings.from_env({**PRODUCTION, "COOKIE_SECRET": "x" * 32}).cookie_secret == "x" * 32


def test_default_secrets_are_allowed_outside_production():
    for env in ("development", "test", "staging"):
        assert Settings.from_env({"COMMERCE_ENV": env}).cookie_secret == DEFAULT_SECRET


def test_production_may_choose_a_stricter_same_site_policy():
    s = Settings.from_env({**PRODUCTION, "COOKIE_SAMESITE": "Strict"})
    assert (s.cookie_secure, s.cookie_samesite) == (True, "Strict")
    s = Settings.from_env({**PRODUCTION, "COOKIE_SAMESITE": "Lax", "COOKIE_SECURE": "false"})
    assert (s.cookie_secure, s.cookie_samesite) == (False, "Lax")


@pytest.mark.parametrize("environ", [
    {"COOKIE_SAMESITE": "None"},
    {"COOKIE_SAMESITE": "None", "COOKIE_SECURE": "false"},
    {**PRODUCTION, "COOKIE_SECURE": "0"},
])
def test_same_site_none_without_a_secure_cookie_is_refused(environ):
    with pytest.raises(ConfigError, match="COOKIE_SAMESITE=None needs COOKIE_SECURE=true"):
        Settings.from_env(environ)


def test_same_site_none_with_a_secure_cookie_is_accepted_outside_production():
    s = Settings.from_env({"COOKIE_SAMESITE": "None", "COOKIE_SECURE": "true"})
    assert (s.cookie_secure, s.cookie_samesite) == (True, "None")


@pytest.mark.parametrize("value", ["none", "Relaxed", "lax "])
def test_an_unknown_same_site_policy_is_refused(value):
    with pytest.raises(ConfigError, match="COOKIE_SAMESITE must be Lax, Strict or None"):
        Settings.from_env({"COOKIE_SAMESITE": value})


@pytest.mark.parametrize("value,secure", [
    ("1", True), ("true", True), ("TRUE", True), ("yes", True), ("on", True), (" true ", True),
    ("0", False), ("false", False), ("no", False), ("off", False), ("", False),
])
def test_cookie_secure_reads_the_usual_boolean_spellings(value, secure):
    assert Settings.from_env({"COOKIE_SECURE": value}).cookie_secure is secure


@pytest.mark.parametrize("value,origins", [
    ("https://shop.example", ("https://shop.example",)),
    ("https://shop.example,https://www.shop.example", ("https://shop.example", "https://www.shop.example")),
    (" https://a.example , ,https://b.example,", ("https://a.example", "https://b.example")),
])
def test_cors_origins_are_comma_separated_lists(value, origins):
    s = Settings.from_env({"STORE_CORS": value, "ADMIN_CORS": value})
    assert s.store_cors == s.admin_cors == origins


def test_empty_cors_lists_keep_the_defaults():
    s = Settings.from_env({"STORE_CORS": "", "ADMIN_CORS": " , "})
    assert s.store_cors == Settings.store_cors and s.admin_cors == ()  # the dashboard is served here
    s = Settings.from_env({"STORE_CORS": "", "ADMIN_CORS": " , ", "DASHBOARD": "false"})
    assert s.store_cors == Settings.store_cors and s.admin_cors == Settings.admin_cors


def test_numbers_are_read_from_the_environment():
    s = Settings.from_env({
        "SESSION_TTL": "600", "MAX_BODY_BYTES": "2048", "WEB_CONCURRENCY": "4", "WORKER_PROCESSES": "3",
        "WORKER_THREADS": "8", "OUTBOX_GRACE_SECONDS": "2.5", "JOB_LEASE_SECONDS": "60",
        "SCHEDULER_INTERVAL_SECONDS": "0.5",
    })
    assert (s.session_ttl, s.max_body_bytes, s.web_concurrency, s.worker_processes, s.worker_threads) == (
        600, 2048, 4, 3, 8)
    assert (s.outbox_grace_seconds, s.job_lease_seconds, s.scheduler_interval_seconds) == (2.5, 60.0, 0.5)


def test_stale_authorizations_are_an_hour_old_by_default_and_never_younger_than_the_retries():
    assert Settings.from_env({}).stale_authorization_seconds == 3600.0
    assert Settings.from_env({"STALE_AUTHORIZATION_SECONDS": "7200"}).stale_authorization_seconds == 7200.0
    with pytest.raises(ConfigError, match="STALE_AUTHORIZATION_SECONDS must be at least 900"):
        Settings.from_env({"STALE_AUTHORIZATION_SECONDS": "60"})


def test_catalogue_reads_are_revalidated_every_time_unless_store_cache_seconds_says_otherwise():
    assert Settings.from_env({}).store_cache_seconds == 0
    assert Settings.from_env({"STORE_CACHE_SECONDS": "60"}).store_cache_seconds == 60
    with pytest.raises(ConfigError, match="STORE_CACHE_SECONDS must be 0 or more"):
        Settings.from_env({"STORE_CACHE_SECONDS": "-1"})


@pytest.mark.parametrize("name,value", [
    ("SESSION_TTL", "10h"), ("MAX_BODY_BYTES", "1mb"), ("WORKER_THREADS", "2.5"),
    ("OUTBOX_GRACE_SECONDS", "soon"),
])
def test_a_number_that_does_not_parse_is_a_config_error_naming_the_variable(name, value):
    with pytest.raises(ConfigError, match=f"{name} must be a number"):
        Settings.from_env({name: value})


@pytest.mark.parametrize("url", ["postgresql://shop:pw@db:5432/shop", "postgres://shop:pw@db:5432/shop"])
def test_postgres_urls_become_an_asyncpg_pool_of_ten_without_reset_round_trips(url):
    connection = Settings.from_env({"DATABASE_URL": url}).tortoise_config()["connections"]["default"]
    assert connection["engine"] == "tortoise.backends.asyncpg"
    credentials = connection["credentials"]
    assert (credentials["host"], credentials["port"], credentials["database"]) == ("db", 5432, "shop")
    assert (credentials["user"], credentials["password"]) == ("shop", "pw")
    assert credentials["maxsize"] == 10 and callable(credentials["reset"])
    # asyncpg's own limit (15 KiB) would leave the order page's one read of its rows unprepared
    assert credentials["max_cacheable_statement_size"] == MAX_CACHED_STATEMENT_BYTES >= 32 * 1024
    # the sessions price a random page read as on an SSD (tests/services/orders/test_order_reads.py)
    assert credentials["server_settings"] == {"random_page_cost": "1.1"}


def test_the_random_page_cost_on_the_url_wins():
    credentials = tortoise_config("postgres://db/shop?random_page_cost=4")["connections"]["default"]["credentials"]
    assert credentials["server_settings"] == {"random_page_cost": "4"} and "random_page_cost" not in credentials


def test_the_pool_size_on_the_url_wins():
    config = tortoise_config("postgres://db/shop?maxsize=25")
    assert config["connections"]["default"]["credentials"]["maxsize"] == "25"


@pytest.mark.parametrize("url", ["sqlite://commerce.sqlite3", "sqlite://:memory:"])
def test_tortoise_config_keeps_sqlite_urls(url):
    s = Settings.from_env({"DATABASE_URL": url})
    config = s.tortoise_config()
    assert config == tortoise_config(url)
    assert config["connections"] == {"default": f"{url}?temp_store=MEMORY"}
    assert config["apps"]["models"]["models"] == ["models"]
    assert config["apps"]["models"]["default_connection"] == "default"
    assert config["use_tz"] is True and config["timezone"] == "UTC"


def test_sqlite_keeps_statement_journals_in_memory_unless_the_url_says_otherwise():
    assert tortoise_config("sqlite://shop.db?journal_mode=WAL")["connections"]["default"] == (
        "sqlite://shop.db?journal_mode=WAL&temp_store=MEMORY")
    assert tortoise_config("sqlite://shop.db?temp_store=FILE")["connections"]["default"] == (
        "sqlite://shop.db?temp_store=FILE")


def test_a_postgresql_url_counts_as_postgres():
    assert Settings.from_env({"DATABASE_URL": "postgresql://db/shop"}).is_postgres
    assert not Settings.from_env({"DATABASE_URL": "sqlite:///tmp/x.sqlite3"}).is_postgres


def test_invite_links_may_use_the_dashboards_origins_and_those_the_operator_adds():
    assert Settings.from_env({}).invite_origins == ("http://localhost:9000",)  # the dashboard served here
    assert Settings.from_env({"DASHBOARD": "false"}).invite_origins == (
        "http://localhost:7001", "http://localhost:7000", "http://localhost:7001")
    s = Settings.from_env({"ADMIN_URL": "https://admin.shop.example/app/", "ADMIN_CORS": "*",
                           "INVITE_LINK_ORIGINS": "https://team.example, https://join.example"})
    # `*` in ADMIN_CORS answers any dashboard, but names no origin for a token to go to
    assert s.invite_origins == ("https://admin.shop.example", "https://team.example", "https://join.example")


def test_stripe_is_configured_from_its_settings_and_its_secrets_stay_out_of_logs():
    s = Settings.from_env({
        "STRIPE_API_KEY": "sk_live_secret", "STRIPE_WEBHOOK_SECRET": "whsec_secret", "STRIPE_CAPTURE": "true",
        "STRIPE_AUTOMATIC_PAYMENT_METHODS": "1", "STRIPE_PAYMENT_DESCRIPTION": "My shop",
        "STRIPE_API_BASE": "http://127.0.0.1:8420", "STRIPE_ABANDONED_MINUTES": "30",
    })
    assert (s.stripe_api_key, s.stripe_webhook_secret) == ("sk_live_secret", "whsec_secret")
    assert s.stripe_capture and s.stripe_automatic_payment_methods
    assert (s.stripe_payment_description, s.stripe_api_base, s.stripe_abandoned_minutes) == (
        "My shop", "http://127.0.0.1:8420", 30.0)
    assert "sk_live_secret" not in repr(s) and "whsec_secret" not in repr(s)
    default = Settings.from_env({})
    assert default.stripe_api_key is None and not default.stripe_capture and default.stripe_abandoned_minutes == 60


def test_stripe_abandoned_minutes_must_be_a_positive_number():
    for value in ("0", "-5", "soon"):
        with pytest.raises(ConfigError, match="STRIPE_ABANDONED_MINUTES"):
            Settings.from_env({"STRIPE_ABANDONED_MINUTES": value})


@pytest.mark.parametrize("env", ["prod", "Production", "dev"])
def test_an_unknown_environment_is_refused_rather_than_taken_for_development(env):
    with pytest.raises(ConfigError) as e:
        Settings.from_env({"COMMERCE_ENV": env})
    assert str(e.value) == f"COMMERCE_ENV={env!r} is not one of development, test, staging, production"


@pytest.mark.parametrize("url,scheme", [
    ("postgress://u:pw@db/shop", "postgress://"), ("mysql://u:pw@db/shop", "mysql://"), ("commerce.sqlite3", "no scheme"),
])
def test_a_database_url_of_another_kind_is_refused_naming_only_its_scheme(url, scheme):
    with pytest.raises(ConfigError) as e:
        Settings.from_env({"DATABASE_URL": url})
    assert str(e.value).startswith(f"DATABASE_URL has {scheme}: use postgres://") and "pw" not in str(e.value)


def test_a_redis_url_of_another_kind_is_refused():
    with pytest.raises(ConfigError):
        Settings.from_env({"REDIS_URL": "localhost:6379"})
    assert Settings.from_env({"REDIS_URL": "rediss://cache:6380/0"}).redis_url == "rediss://cache:6380/0"
