"""Concurrent reads: `in_batches` answers batch by batch, in order, and reads no further once the caller stops."""

from __future__ import annotations

import threading

from controlplane.core.concurrency import MAX_PARALLEL_READS, in_batches


def test_in_batches_answers_each_batch_in_the_items_order():
    items = list(range(2 * MAX_PARALLEL_READS + 3))
    batches = list(in_batches(lambda item: item * 10, items))
    assert [len(batch) for batch in batches] == [MAX_PARALLEL_READS, MAX_PARALLEL_READS, 3]
    assert [answer for batch in batches for answer in batch] == [item * 10 for item in items]


def test_in_batches_starts_no_further_batch_once_the_caller_has_its_answer():
    read: list[int] = []
    lock = threading.Lock()

    def record(item: int) -> int:
        with lock:
            read.append(item)
        return item

    for batch in in_batches(record, list(range(5 * MAX_PARALLEL_READS))):
        if MAX_PARALLEL_READS in batch:
            break
    assert sorted(read) == list(range(2 * MAX_PARALLEL_READS))
