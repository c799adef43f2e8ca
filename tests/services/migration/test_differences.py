"""A money difference outlives the run that found it: every later run checks it again and fails
until it is fixed or accepted by name."""

import io

from services.migration.medusa_v1 import Progress, move
from tests.services.migration.conftest import source_fetch
from tests.services.migration.test_frame import _cli

# A refund row that says one unit more than its payment records (as a plugin's own SQL could
# leave it): Medusa's refunded total is its refund rows', ours the payments'. `updated_at` stays.
SPOIL = "UPDATE refund SET amount = amount {} 1 WHERE id = (SELECT min(id) FROM refund)"


async def _run(url: str, **kwargs):
    return await move(url, progress=Progress(io.StringIO()), **kwargs)


async def _spoilt_order(url: str) -> str:
    return (await source_fetch(url, "SELECT order_id FROM refund ORDER BY id LIMIT 1"))[0]["order_id"]


async def test_a_difference_is_listed_by_every_run_until_accepted(medusa_copy):
    url, run = medusa_copy
    # Given a first run that found an order's money differing
    await run(SPOIL.format("+"))
    found = await _run(url)
    assert len(found.money_differences) == 1
    assert found.money_differences[0].startswith(f"order {await _spoilt_order(url)} ")
    # When the move runs again with nothing changed in Medusa
    again = await _run(url)
    # Then it checks that order again and still lists it
    assert again.money_differences == found.money_differences and again.money_orders_checked == 1
    assert f"MONEY DIFFERS: {found.money_differences[0]}" in again.lines()
    # and a line naming another order accepts nothing
    other = await _run(url, accept=["order order_OTHER (#1): paid 1 in Medusa, 2 here"])
    assert other.money_differences == found.money_differences
    # Once accepted by its line it no longer fails a run, this one or the next
    accepted = await _run(url, accept=found.money_differences)
    assert (accepted.money_differences, accepted.accepted_differences) == ([], found.money_differences)
    assert (await _run(url)).money_differences == []


async def test_a_difference_fixed_in_medusa_is_checked_again_and_forgotten(medusa_copy):
    url, run = medusa_copy
    await run(SPOIL.format("+"))
    assert len((await _run(url)).money_differences) == 1
    # When it is put right in Medusa (by a statement that leaves updated_at as it was)
    await run(SPOIL.format("-"))
    fixed = await _run(url)
    # Then the next run checks it once more and finds it whole; the one after has nothing to recheck
    assert fixed.money_differences == [] and fixed.money_orders_checked == 1
    assert (await _run(url)).money_orders_checked == 0


async def test_the_command_exits_6_on_every_run_until_the_written_differences_are_accepted(medusa_copy, tmp_path):
    url, run = medusa_copy
    await run(SPOIL.format("+"))
    order = await _spoilt_order(url)
    target, listed = tmp_path / "moved.sqlite3", tmp_path / "differences.txt"
    for _ in range(2):
        done = _cli("--from", url, "--differences", str(listed), database_url=f"sqlite://{target}")
        assert done.returncode == 6, done.stderr
        assert listed.read_text().startswith(f"order {order} ") and len(listed.read_text().splitlines()) == 1
        assert f"--accept-differences {listed}" in done.stderr.splitlines()[-1]
    done = _cli("--from", url, "--accept-differences", str(listed), database_url=f"sqlite://{target}")
    assert done.returncode == 0, done.stderr
    assert any(line.startswith(f"accepted difference: order {order} ") for line in done.stdout.splitlines())
