"""The module `dramatiq` loads in each worker process (`commerce worker`): broker, Tortoise on
the worker's event loop, then the actors."""

from __future__ import annotations

from dramatiq import Middleware
from dramatiq.asyncio import get_event_loop_thread
from tortoise import Tortoise

from app.config import Settings
from services import files
from workers.broker import load_actors, setup_broker
from workers.logs import configure_logging


class TortoiseInit(Middleware):
    """Tortoise opens its pools on the loop that runs the actors (added after AsyncIO, so that
    loop exists by `before_worker_boot`) and closes them before the loop stops."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def before_worker_boot(self, broker, worker):
        get_event_loop_thread().run_coroutine(
            Tortoise.init(config=self.settings.tortoise_config(), _enable_global_fallback=True)
        )

    def before_worker_shutdown(self, broker, worker):
        get_event_loop_thread().run_coroutine(Tortoise.close_connections())


configure_logging()
settings = Settings.from_env()
files.configure(settings)  # the worker process's file storage (imports, exports)
broker = setup_broker(settings)
broker.add_middleware(TortoiseInit(settings))
load_actors()
