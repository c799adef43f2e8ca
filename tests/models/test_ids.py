"""Entity ids: the prefix and a ULID, one at a time or many at once for a bulk write."""

import os
from datetime import datetime, timedelta, timezone

from ulid import ULID

from models.ids import _ulid_text, new_id, new_ids


def test_a_ulids_text_is_written_as_the_ulid_library_writes_it():
    for value in [0, (1 << 128) - 1, *(int.from_bytes(os.urandom(16), "big") for _ in range(2000))]:
        assert _ulid_text(value) == str(ULID.from_int(value))


def test_ids_made_at_once_are_ulids_of_now_distinct_and_in_the_order_given():
    ids = new_ids("ma", 1000)
    assert len(set(ids)) == 1000 and ids == sorted(ids)
    assert all(i.startswith("ma_") and len(i) == 29 for i in ids)
    made = {ULID.from_str(i[3:]).datetime for i in ids}
    assert len(made) == 1 and abs(made.pop() - datetime.now(timezone.utc)) < timedelta(minutes=1)
    # and they are told apart from ids made one at a time
    assert not set(ids) & {new_id("ma") for _ in range(1000)}
