"""A version read shared by concurrent requests (app/web/answer_cache.py `SharedRead`): each call
gets a read that started after it was made (so it sees every write committed before it), and the
calls made while a read is on its way share the next one."""

import asyncio

import pytest

from app.web.answer_cache import SharedRead


class Reads:
    """A read whose every round trip the test lets finish, answering how many had started."""

    def __init__(self):
        self.started: list[asyncio.Future] = []

    async def __call__(self) -> int:
        done = asyncio.get_running_loop().create_future()
        self.started.append(done)
        await done
        return len(self.started)

    async def finish(self, n: int) -> None:
        while len(self.started) < n:
            await asyncio.sleep(0)
        self.started[n - 1].set_result(None)


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_calls_made_during_a_read_share_the_next_one_which_starts_after_them():
    reads = Reads()
    shared = SharedRead(reads)
    # Given a read on its way
    first = asyncio.create_task(shared())
    await _settle()
    assert len(reads.started) == 1
    # When three more calls come meanwhile
    later = [asyncio.create_task(shared()) for _ in range(3)]
    await _settle()
    assert len(reads.started) == 1  # they wait: that read started before them
    await reads.finish(1)
    # I expect the first call to get the first read, and the others one more read, started after them
    assert await first == 1
    await reads.finish(2)
    assert await asyncio.gather(*later) == [2, 2, 2]
    assert shared.reads == 2
    # and a call alone afterwards makes its own read
    alone = asyncio.create_task(shared())
    await reads.finish(3)
    assert await alone == 3


async def test_a_failed_read_fails_its_sharers_and_the_next_call_reads_again():
    calls = 0

    async def read():
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ConnectionError("dropped")
        return "v"

    shared = SharedRead(read)
    results = await asyncio.gather(shared(), shared(), return_exceptions=True)
    assert all(isinstance(r, ConnectionError) for r in results)
    assert await shared() == "v"


async def test_a_cancelled_caller_leaves_the_read_to_the_others():
    reads = Reads()
    shared = SharedRead(reads)
    one, two = asyncio.create_task(shared()), asyncio.create_task(shared())
    await _settle()
    one.cancel()
    await reads.finish(1)
    with pytest.raises(asyncio.CancelledError):
        await one
    assert await two == 1
