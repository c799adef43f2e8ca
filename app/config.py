"""Settings read from the environment, once, in one place.

Every process (web, worker, scheduler, CLI) builds its `Settings` with `Settings.from_env()`.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from app.dashboard import DashboardSettings
from app.env_values import ConfigError, as_bool, as_list, as_networks, as_number
from services.carts.line_limits import DEFAULT_MAX_LINES
from services.core.metadata import DEFAULT_MAX_BYTES as DEFAULT_METADATA_BYTES

__all__ = ["Settings", "ConfigError", "DEFAULT_SECRET", "MIN_SECRET_LENGTH", "ENVIRONMENTS", "DATABASE_SCHEMES"]

# The value Medusa v1 falls back to outside production; refused when COMMERCE_ENV=production.
# Long enough for HS256 (no InsecureKeyLengthWarning); production refuses it (Settings.check).
DEFAULT_SECRET = "commerce-development-secret-never-for-production"
# HS256 wants a key at least as long as its hash (RFC 7518 §3.2).
MIN_SECRET_LENGTH = 32
# COMMERCE_ENV's values: only production checks secrets and secures the cookie, so a misspelt
# "prod" must not pass for development.
ENVIRONMENTS = ("development", "test", "staging", "production")
DATABASE_SCHEMES = ("sqlite://", "postgres://", "postgresql://", "asyncpg://")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
# Well past a completion's retries (backoff up to a minute, eight times): younger is still in play.
MIN_STALE_AUTHORIZATION_SECONDS = 900


def _dashboard_url(e, dashboard: DashboardSettings) -> str | None:
    """Where the served dashboard is: on BACKEND_URL's host, else on the default port's."""
    if not dashboard.enabled:
        return None
    return (e.get("BACKEND_URL") or "http://localhost:9000").rstrip("/") + dashboard.path


@dataclass(frozen=True)
class Settings:
    env: str = "development"
    database_url: str = "sqlite://commerce.sqlite3"
    redis_url: str | None = None
    redis_namespace: str = "commerce"  # prefix of every Redis key (queues, sessions, counters)
    cookie_secret: str = DEFAULT_SECRET
    jwt_secret: str = DEFAULT_SECRET
    store_cors: tuple[str, ...] = ("http://localhost:8000", "http://127.0.0.1:8000")
    admin_cors: tuple[str, ...] = ("http://localhost:7000", "http://localhost:7001")
    session_ttl: int = 36_000  # seconds; Medusa v1's 10 hours
    cookie_secure: bool = False
    cookie_samesite: str = "Lax"
    max_body_bytes: int = 1_000_000
    # Peers whose proxy header names the client (app/web/client_address.py); none: the peer is the client.
    trusted_proxies: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    trusted_proxy_header: str = "x-forwarded-for"  # or "forwarded" (RFC 7239)
    max_lines_per_order: int = DEFAULT_MAX_LINES  # lines of one cart, draft order or order edit
    metadata_max_bytes: int = DEFAULT_METADATA_BYTES  # one entity's metadata, as compact JSON
    inventory_locations: bool = False  # stock counted per location (services/inventory), Medusa's inventory modules
    body_timeout_seconds: float = 15.0  # the whole request body (uploads excepted) must arrive within this
    header_timeout_seconds: float = 10.0  # the whole request head must arrive within this of its first byte
    web_concurrency: int = 1
    database_pool_size: int = 10  # PostgreSQL connections a web process opens at most (workers: fewer)
    worker_processes: int = 2
    worker_threads: int = 4
    outbox_grace_seconds: float = 30.0  # a pending job older than this is re-sent by the scheduler
    job_lease_seconds: float = 900.0  # a job enqueued or retrying this long without a worker taking it is re-sent
    job_heartbeat_seconds: float = 5.0  # a running job (and a batch job's run) beats its row this often
    job_takeover_seconds: float = 15.0  # a running job or batch run silent this long is taken over
    worker_grace_seconds: float = 30.0  # `commerce worker` stops within this on SIGTERM / SIGINT
    scheduler_interval_seconds: float = 15.0
    auth_cache_seconds: float = 5.0  # how long a verified admin JWT and its user are remembered
    session_cache_seconds: float = 1.0  # how long a web process remembers a session it read (0: never)
    # Cache-Control max-age of the storefront's catalogue reads (app/web/store_cache.py); 0: revalidate every time.
    store_cache_seconds: int = 0
    file_storage_dir: str = "uploads"  # local file storage (uploads, exports) of the embedded default
    tax_job_wait_seconds: float = 5.0  # POST /store/carts/:id/taxes waits this long for its job, then answers 202
    # A cart payment authorized this long ago without an order is canceled (none in a completion still retrying).
    stale_authorization_seconds: float = 3600.0
    max_upload_bytes: int = 100_000_000  # one POST /admin/uploads request (import CSVs can be large)
    backend_url: str | None = None  # base of file URLs; None: the scheme and host of the request
    download_url_seconds: int = 900  # lifetime of a signed download URL
    s3_bucket: str | None = None  # set: files live in this S3-compatible bucket instead of file_storage_dir
    s3_endpoint_url: str | None = None  # None: AWS itself
    s3_region: str | None = None
    s3_access_key_id: str | None = None  # both None: boto3's own chain (environment, instance role)
    s3_secret_access_key: str | None = None
    s3_public_url: str | None = None  # base URL where the bucket's uploads/ are public (a CDN, say)
    storefront_url: str = "http://localhost:8000"  # base of the links in messages (password reset, order claim)
    admin_url: str = "http://localhost:7001"  # where the dashboard lives: base of the team's links (invite, reset)
    # Origins besides the dashboard's (ADMIN_URL, ADMIN_CORS) that the store's invite_link_template may use.
    invite_link_origins: tuple[str, ...] = ()
    smtp_host: str | None = None  # set: messages go out by SMTP; unset: only recorded (notification table, log)
    smtp_port: int = 587
    smtp_username: str | None = None
    smtp_password: str | None = None
    smtp_tls: str = "starttls"  # starttls | ssl | none
    smtp_from: str = "no-reply@localhost"
    # A folder of message templates searched before the built-in ones (services/notifications/rendering.py).
    notification_templates: str | None = None
    # Webhooks go to http(s) URLs on public addresses only; true lets them reach loopback, private
    # and link-local ones too (a receiver on the same host or network, tests).
    webhooks_allow_private: bool = False
    webhook_timeout_seconds: float = 10.0  # one delivery attempt, connection to last byte
    webhook_disable_after_seconds: float = 5 * 86400.0  # an endpoint failing this long with no success is disabled
    rate_limit_window_seconds: float = 900.0  # how long the counters below last once started
    sign_in_failures_per_email_and_ip: int = 10  # then that address's sign-in for that email answers 429
    sign_in_failures_per_ip: int = 50
    # From all addresses; past it only addresses that already failed for the email are refused.
    sign_in_failures_per_email: int = 100
    # Per address, which may be an office or a carrier's NAT: a shop's busiest hour from one such
    # address stays under these, a script is held to a request every 3 s (look-ups) or 9 s (sign-ups).
    email_lookups_per_ip: int = 300  # GET /store/auth/{email}
    sign_ups_per_ip: int = 100  # POST /store/customers (each costs a password hash)
    order_lookup_failures_per_email: int = 10
    order_lookup_failures_per_ip: int = 100
    message_requests_per_email: int = 5  # password-token requests per email, order-claim requests per customer
    message_requests_per_ip: int = 30
    # Stripe (services/payments/stripe/): the provider is registered when the key is set.
    stripe_api_key: str | None = field(default=None, repr=False)  # never in a log line
    # whsec_...: without it POST /stripe/hooks refuses every event.
    stripe_webhook_secret: str | None = field(default=None, repr=False)
    stripe_capture: bool = False  # capture at authorization (capture_method automatic), as Medusa's `capture`
    stripe_automatic_payment_methods: bool = False
    stripe_payment_description: str | None = None
    stripe_api_base: str | None = None  # None: Stripe itself; tests point it at localstripe
    stripe_abandoned_minutes: float = 60.0  # a held intent of a cart without an order this long is canceled
    # The shop's plugins to run, by name (services/plugins.py): installed and not named, a plugin stays off.
    plugins: tuple[str, ...] = ()
    # Which plugin's provider serves the whole shop when several offer one (services/core/plugins.py Providers).
    notification_provider: str | None = None
    file_provider: str | None = None
    search_provider: str | None = None
    # The admin dashboard served at DASHBOARD_PATH (app/dashboard/); its defaults shape the three below.
    dashboard: DashboardSettings = field(default_factory=DashboardSettings)

    @property
    def production(self) -> bool:
        return self.env == "production"

    @property
    def embedded(self) -> bool:
        """No Redis: in-memory broker, worker threads and scheduler inside the web process."""
        return not self.redis_url

    @property
    def invite_origins(self) -> tuple[str, ...]:
        """Where an invitation's link may take its token: the dashboard's own origins, and any the
        operator adds (`*` in ADMIN_CORS names no origin)."""
        parts = urlsplit(self.admin_url)
        dashboard = f"{parts.scheme}://{parts.netloc}"
        return (dashboard, *(o for o in self.admin_cors if o != "*"), *self.invite_link_origins)

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith(("postgres://", "postgresql://", "asyncpg://"))

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "Settings":
        e = os.environ if environ is None else environ
        env = (e.get("COMMERCE_ENV") or "development").strip()
        production = env == "production"
        dashboard = DashboardSettings.from_env(e)
        # Served from here (same origin), the dashboard needs no CORS entry, its cookie no
        # cross-site use, and its links point here; DASHBOARD=false keeps the separate-origin defaults.
        here = dashboard.enabled
        settings = cls(
            env=env,
            database_url=e.get("DATABASE_URL") or cls.database_url,
            redis_url=e.get("REDIS_URL") or None,
            redis_namespace=e.get("REDIS_NAMESPACE") or cls.redis_namespace,
            cookie_secret=e.get("COOKIE_SECRET") or DEFAULT_SECRET,
            jwt_secret=e.get("JWT_SECRET") or DEFAULT_SECRET,
            store_cors=as_list(e.get("STORE_CORS")) or cls.store_cors,
            admin_cors=as_list(e.get("ADMIN_CORS")) or (() if here else cls.admin_cors),
            session_ttl=as_number(e, "SESSION_TTL", cls.session_ttl),
            # Secure in production: the browser sends the session back over https only, so a shop
            # reached over plain http (a LAN address, no TLS proxy) signs in and then loses the
            # session at once; there set COOKIE_SECURE=false with COOKIE_SAMESITE=Lax.
            cookie_secure=as_bool(e.get("COOKIE_SECURE"), production),
            cookie_samesite=e.get("COOKIE_SAMESITE") or ("None" if production else "Strict" if here else "Lax"),
            max_body_bytes=as_number(e, "MAX_BODY_BYTES", cls.max_body_bytes),
            trusted_proxies=as_networks("TRUSTED_PROXIES", e.get("TRUSTED_PROXIES")),
            trusted_proxy_header=(e.get("TRUSTED_PROXY_HEADER") or cls.trusted_proxy_header).strip().lower(),
            max_lines_per_order=as_number(e, "MAX_LINES_PER_ORDER", cls.max_lines_per_order),
            metadata_max_bytes=as_number(e, "METADATA_MAX_BYTES", cls.metadata_max_bytes),
            inventory_locations=as_bool(e.get("INVENTORY_LOCATIONS"), cls.inventory_locations),
            body_timeout_seconds=as_number(e, "BODY_TIMEOUT_SECONDS", cls.body_timeout_seconds, float),
            header_timeout_seconds=as_number(e, "HEADER_TIMEOUT_SECONDS", cls.header_timeout_seconds, float),
            web_concurrency=as_number(e, "WEB_CONCURRENCY", cls.web_concurrency),
            database_pool_size=as_number(e, "DATABASE_POOL_SIZE", cls.database_pool_size),
            worker_processes=as_number(e, "WORKER_PROCESSES", cls.worker_processes),
            worker_threads=as_number(e, "WORKER_THREADS", cls.worker_threads),
            outbox_grace_seconds=as_number(e, "OUTBOX_GRACE_SECONDS", cls.outbox_grace_seconds, float),
            job_lease_seconds=as_number(e, "JOB_LEASE_SECONDS", cls.job_lease_seconds, float),
            job_heartbeat_seconds=as_number(e, "JOB_HEARTBEAT_SECONDS", cls.job_heartbeat_seconds, float),
            job_takeover_seconds=as_number(e, "JOB_TAKEOVER_SECONDS", cls.job_takeover_seconds, float),
            worker_grace_seconds=as_number(e, "WORKER_GRACE_SECONDS", cls.worker_grace_seconds, float),
            auth_cache_seconds=as_number(e, "AUTH_CACHE_SECONDS", cls.auth_cache_seconds, float),
            session_cache_seconds=as_number(e, "SESSION_CACHE_SECONDS", cls.session_cache_seconds, float),
            store_cache_seconds=as_number(e, "STORE_CACHE_SECONDS", cls.store_cache_seconds),
            file_storage_dir=e.get("FILE_STORAGE_DIR") or cls.file_storage_dir,
            tax_job_wait_seconds=as_number(e, "TAX_JOB_WAIT_SECONDS", cls.tax_job_wait_seconds, float),
            stale_authorization_seconds=as_number(
                e, "STALE_AUTHORIZATION_SECONDS", cls.stale_authorization_seconds, float
            ),
            max_upload_bytes=as_number(e, "MAX_UPLOAD_BYTES", cls.max_upload_bytes),
            backend_url=(e.get("BACKEND_URL") or "").rstrip("/") or None,
            download_url_seconds=as_number(e, "DOWNLOAD_URL_SECONDS", cls.download_url_seconds),
            s3_bucket=e.get("S3_BUCKET") or None,
            s3_endpoint_url=e.get("S3_ENDPOINT_URL") or None,
            s3_region=e.get("S3_REGION") or None,
            s3_access_key_id=e.get("S3_ACCESS_KEY_ID") or None,
            s3_secret_access_key=e.get("S3_SECRET_ACCESS_KEY") or None,
            s3_public_url=(e.get("S3_PUBLIC_URL") or "").rstrip("/") or None,
            scheduler_interval_seconds=as_number(
                e, "SCHEDULER_INTERVAL_SECONDS", cls.scheduler_interval_seconds, float
            ),
            storefront_url=(e.get("STOREFRONT_URL") or cls.storefront_url).rstrip("/"),
            admin_url=(e.get("ADMIN_URL") or _dashboard_url(e, dashboard) or cls.admin_url).rstrip("/"),
            invite_link_origins=as_list(e.get("INVITE_LINK_ORIGINS")),
            smtp_host=e.get("SMTP_HOST") or None,
            smtp_port=as_number(e, "SMTP_PORT", cls.smtp_port),
            smtp_username=e.get("SMTP_USERNAME") or None,
            smtp_password=e.get("SMTP_PASSWORD") or None,
            smtp_tls=(e.get("SMTP_TLS") or cls.smtp_tls).strip().lower(),
            smtp_from=e.get("SMTP_FROM") or cls.smtp_from,
            notification_templates=e.get("NOTIFICATION_TEMPLATES") or None,
            webhooks_allow_private=as_bool(e.get("WEBHOOKS_ALLOW_PRIVATE"), cls.webhooks_allow_private),
            webhook_timeout_seconds=as_number(e, "WEBHOOK_TIMEOUT_SECONDS", cls.webhook_timeout_seconds, float),
            webhook_disable_after_seconds=as_number(
                e, "WEBHOOK_DISABLE_AFTER_SECONDS", cls.webhook_disable_after_seconds, float
            ),
            rate_limit_window_seconds=as_number(e, "RATE_LIMIT_WINDOW_SECONDS", cls.rate_limit_window_seconds, float),
            sign_in_failures_per_email_and_ip=as_number(
                e, "SIGN_IN_FAILURES_PER_EMAIL_AND_IP", cls.sign_in_failures_per_email_and_ip
            ),
            sign_in_failures_per_email=as_number(e, "SIGN_IN_FAILURES_PER_EMAIL", cls.sign_in_failures_per_email),
            sign_in_failures_per_ip=as_number(e, "SIGN_IN_FAILURES_PER_IP", cls.sign_in_failures_per_ip),
            email_lookups_per_ip=as_number(e, "EMAIL_LOOKUPS_PER_IP", cls.email_lookups_per_ip),
            sign_ups_per_ip=as_number(e, "SIGN_UPS_PER_IP", cls.sign_ups_per_ip),
            order_lookup_failures_per_email=as_number(
                e, "ORDER_LOOKUP_FAILURES_PER_EMAIL", cls.order_lookup_failures_per_email
            ),
            order_lookup_failures_per_ip=as_number(e, "ORDER_LOOKUP_FAILURES_PER_IP", cls.order_lookup_failures_per_ip),
            message_requests_per_email=as_number(e, "MESSAGE_REQUESTS_PER_EMAIL", cls.message_requests_per_email),
            message_requests_per_ip=as_number(e, "MESSAGE_REQUESTS_PER_IP", cls.message_requests_per_ip),
            stripe_api_key=e.get("STRIPE_API_KEY") or None,
            stripe_webhook_secret=e.get("STRIPE_WEBHOOK_SECRET") or None,
            stripe_capture=as_bool(e.get("STRIPE_CAPTURE"), cls.stripe_capture),
            stripe_automatic_payment_methods=as_bool(
                e.get("STRIPE_AUTOMATIC_PAYMENT_METHODS"), cls.stripe_automatic_payment_methods
            ),
            stripe_payment_description=e.get("STRIPE_PAYMENT_DESCRIPTION") or None,
            stripe_api_base=e.get("STRIPE_API_BASE") or None,
            stripe_abandoned_minutes=as_number(e, "STRIPE_ABANDONED_MINUTES", cls.stripe_abandoned_minutes, float),
            plugins=tuple(dict.fromkeys(as_list(e.get("PLUGINS")))),
            notification_provider=(e.get("NOTIFICATION_PROVIDER") or "").strip() or None,
            file_provider=(e.get("FILE_PROVIDER") or "").strip() or None,
            search_provider=(e.get("SEARCH_PROVIDER") or "").strip() or None,
            dashboard=dashboard,
        )
        settings.check()
        return settings

    def check(self) -> None:
        self._check_names()
        if self.production:
            weak = [
                name
                for name, value in (("COOKIE_SECRET", self.cookie_secret), ("JWT_SECRET", self.jwt_secret))
                if value == DEFAULT_SECRET or len(value) < MIN_SECRET_LENGTH
            ]
            if weak:
                raise ConfigError(
                    f"COMMERCE_ENV=production refuses default or short secrets: set {', '.join(weak)} "
                    f"to random values of at least {MIN_SECRET_LENGTH} characters"
                )
        if self.cookie_samesite not in ("Lax", "Strict", "None"):
            raise ConfigError("COOKIE_SAMESITE must be Lax, Strict or None")
        if self.cookie_samesite == "None" and not self.cookie_secure:
            raise ConfigError("COOKIE_SAMESITE=None needs COOKIE_SECURE=true (browsers drop it otherwise)")
        if self.trusted_proxy_header not in ("x-forwarded-for", "forwarded"):
            raise ConfigError("TRUSTED_PROXY_HEADER must be X-Forwarded-For or Forwarded")
        if self.body_timeout_seconds <= 0:
            raise ConfigError("BODY_TIMEOUT_SECONDS must be positive")
        if self.header_timeout_seconds <= 0:
            raise ConfigError("HEADER_TIMEOUT_SECONDS must be positive")
        if self.stale_authorization_seconds < MIN_STALE_AUTHORIZATION_SECONDS:
            raise ConfigError(f"STALE_AUTHORIZATION_SECONDS must be at least {MIN_STALE_AUTHORIZATION_SECONDS}")
        if self.stripe_abandoned_minutes <= 0:
            raise ConfigError("STRIPE_ABANDONED_MINUTES must be positive")
        if self.max_lines_per_order <= 0:
            raise ConfigError("MAX_LINES_PER_ORDER must be positive")
        if self.metadata_max_bytes <= 0:
            raise ConfigError("METADATA_MAX_BYTES must be positive")
        if self.job_heartbeat_seconds <= 0 or self.job_takeover_seconds < 2 * self.job_heartbeat_seconds:
            # A live job that misses one beat (a slow query) must not be taken for dead.
            raise ConfigError("JOB_HEARTBEAT_SECONDS must be positive and JOB_TAKEOVER_SECONDS at least twice it")
        if self.worker_grace_seconds <= 0:
            raise ConfigError("WORKER_GRACE_SECONDS must be positive")
        if self.database_pool_size <= 0:
            raise ConfigError("DATABASE_POOL_SIZE must be positive")
        if self.store_cache_seconds < 0:
            raise ConfigError("STORE_CACHE_SECONDS must be 0 or more")
        if self.dashboard.enabled and self.dashboard.problem():
            raise ConfigError(self.dashboard.problem())
        self._check_files()
        self._check_messages()

    def _check_names(self) -> None:
        """The values a typo would otherwise turn into a silent default or a traceback later."""
        if self.env not in ENVIRONMENTS:
            raise ConfigError(f"COMMERCE_ENV={self.env!r} is not one of {', '.join(ENVIRONMENTS)}")
        if not self.database_url.startswith(DATABASE_SCHEMES):
            # Only the scheme is repeated: the rest may hold a password.
            scheme = self.database_url.split("://", 1)[0] + "://" if "://" in self.database_url else "no scheme"
            raise ConfigError(
                f"DATABASE_URL has {scheme}: use postgres://user:password@host:5432/database "
                "or sqlite://path/to/file.sqlite3"
            )
        if self.redis_url and not self.redis_url.startswith(REDIS_SCHEMES):
            raise ConfigError("REDIS_URL must start with redis://, rediss:// or unix:// (unset: run embedded)")

    def _check_files(self) -> None:
        if self.max_upload_bytes <= 0 or self.download_url_seconds <= 0:
            raise ConfigError("MAX_UPLOAD_BYTES and DOWNLOAD_URL_SECONDS must be positive")
        s3_named = [n for n, v in (
            ("S3_ENDPOINT_URL", self.s3_endpoint_url), ("S3_REGION", self.s3_region),
            ("S3_ACCESS_KEY_ID", self.s3_access_key_id), ("S3_SECRET_ACCESS_KEY", self.s3_secret_access_key),
            ("S3_PUBLIC_URL", self.s3_public_url),
        ) if v]
        if s3_named and not self.s3_bucket:
            # Without the bucket the files would silently stay on this machine's disk.
            raise ConfigError(f"{', '.join(s3_named)} given without S3_BUCKET")
        if bool(self.s3_access_key_id) != bool(self.s3_secret_access_key):
            raise ConfigError("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together")
        if self.production and self.s3_bucket and (self.s3_endpoint_url or "https://").startswith("http://"):
            raise ConfigError("COMMERCE_ENV=production refuses a plain http:// S3_ENDPOINT_URL (keys and files in clear)")

    def _check_messages(self) -> None:
        if self.smtp_tls not in ("starttls", "ssl", "none"):
            raise ConfigError("SMTP_TLS must be starttls, ssl or none")
        if bool(self.smtp_username) != bool(self.smtp_password):
            raise ConfigError("SMTP_USERNAME and SMTP_PASSWORD go together")
        if self.production and self.smtp_username and self.smtp_tls == "none":
            raise ConfigError("COMMERCE_ENV=production refuses SMTP credentials without TLS (SMTP_TLS=none)")
        limits = (
            self.rate_limit_window_seconds, self.sign_in_failures_per_email, self.sign_in_failures_per_ip,
            self.sign_in_failures_per_email_and_ip, self.email_lookups_per_ip, self.sign_ups_per_ip,
            self.order_lookup_failures_per_email, self.order_lookup_failures_per_ip,
            self.message_requests_per_email, self.message_requests_per_ip,
        )
        if min(limits) <= 0:
            raise ConfigError("RATE_LIMIT_WINDOW_SECONDS and the *_PER_EMAIL / *_PER_IP limits must be positive")

    def tortoise_config(self, pool_size: int | None = None) -> dict:
        """`pool_size`: this process's PostgreSQL pool, when smaller than DATABASE_POOL_SIZE."""
        config = tortoise_config(self.database_url, min(pool_size or self.database_pool_size, self.database_pool_size))
        from services.plugins import tortoise_apps  # the plugins' tables, each plugin its own app

        config["apps"].update(tortoise_apps(self.plugins))
        return config

    def worker_pool_size(self, threads: int) -> int:
        """A `commerce worker` process's pool: a connection for each thread's job, and two for the
        jobs' heartbeats, which must not wait behind a long transaction."""
        return min(self.database_pool_size, threads + 2)


MAX_CACHED_STATEMENT_BYTES = 64 * 1024
RANDOM_PAGE_COST = 1.1


async def _keep_session(connection) -> None:
    """Pool release without asyncpg's RESET ALL round trip. asyncpg still rolls back a forgotten
    transaction; we never change session settings or take session-level advisory locks."""


def tortoise_config(database_url: str, pool_size: int = Settings.database_pool_size) -> dict:
    url = database_url
    if url.startswith("postgresql://"):
        url = "postgres://" + url[len("postgresql://"):]
    connection: str | dict = url
    if url.startswith("postgres://"):
        from tortoise.backends.base.config_generator import expand_db_url

        connection = expand_db_url(url)
        credentials = connection["credentials"]
        credentials.setdefault("maxsize", pool_size)  # `?maxsize=` on the URL overrides
        # asyncpg prepares and caches statements up to 15 KiB only; a larger one is parsed and
        # planned again on every run. The one-statement reads of an order page with the admin
        # dashboard's expand, or of a cart with all its relations, are 12-28 KiB.
        credentials.setdefault("max_cacheable_statement_size", MAX_CACHED_STATEMENT_BYTES)
        # PostgreSQL's default random_page_cost (4) prices a page read as on a spinning disk, so
        # the reads that join through a parent (an order page's tax lines through its lines)
        # scan the whole child table until it is large; at 1.1 (as for SSDs and a cached store)
        # they follow the index at any size. `?random_page_cost=` on the URL overrides.
        startup = credentials.setdefault("server_settings", {})  # sent when a session opens
        startup["random_page_cost"] = str(credentials.pop("random_page_cost", RANDOM_PAGE_COST))
        credentials["reset"] = _keep_session
    elif url.startswith("sqlite://") and "temp_store=" not in url:
        # A statement that fires triggers (the search index's) inside a transaction keeps a
        # statement journal, by default a temporary file opened for each statement: about half
        # of an import's time. In memory it costs microseconds (journals and temporary tables are
        # a statement's or a session's, small). `?temp_store=FILE` on the URL overrides.
        connection = url + ("&" if "?" in url else "?") + "temp_store=MEMORY"
    return {
        "connections": {"default": connection},
        "apps": {
            "models": {
                "models": ["models"],
                "default_connection": "default",
                "migrations": "models.migrations",
            }
        },
        "use_tz": True,
        "timezone": "UTC",
    }


# For Tortoise's own CLI (`tortoise -c app.config.TORTOISE_ORM makemigrations`).
TORTOISE_ORM = tortoise_config(os.environ.get("DATABASE_URL") or Settings.database_url)
