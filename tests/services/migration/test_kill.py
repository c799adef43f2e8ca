"""A move killed with SIGKILL part-way, run again, finishes: nothing missing, nothing doubled."""

import os
import signal
import subprocess
import sys
from pathlib import Path

from models import Cart, LineItem, Order
from tests.conftest import SETTINGS

ROOT = Path(__file__).resolve().parents[3]

# The child moves the shop in batches of 50 and, once 500 carts are written, says so and waits to
# be killed: the kill lands at a known point of the run, however fast the machine.
CHILD = """
import asyncio, sys, time
from tortoise import Tortoise
from app.config import Settings
from services.migration.medusa_v1 import Progress, move

class PauseAt(Progress):
    def advance(self, rows):
        super().advance(rows)
        if self.entity == "carts" and self.done >= 500:
            print("PAUSED", self.done, flush=True)
            time.sleep(600)

async def main():
    settings = Settings(database_url=sys.argv[2])
    await Tortoise.init(config=settings.tortoise_config())
    await move(sys.argv[1], batch_rows=50, progress=PauseAt(sys.stderr))

asyncio.run(main())
"""


async def test_a_move_killed_mid_run_run_again_finishes(medusa_source):
    import io

    from services.migration.medusa_v1 import Progress, move

    child = subprocess.Popen([sys.executable, "-c", CHILD, medusa_source, SETTINGS.database_url], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = child.stdout.readline()  # blocks until the child pauses (or dies)
        assert line.startswith("PAUSED"), line
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
    written = await Cart.all().count()
    assert 500 <= written < 2825 and not await LineItem.exists()

    report = await move(medusa_source, progress=Progress(io.StringIO()))
    assert await Cart.all().count() == report.entity("carts").copied == 2825
    assert await LineItem.all().count() == 954 and await Order.all().count() == 223
    assert report.money_differences == []
