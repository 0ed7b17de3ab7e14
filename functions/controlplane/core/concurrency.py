"""Reads that do not depend on each other run at the same time (threads: the calls wait on the network).

Gateways are safe to share between threads: boto3 clients are thread-safe (sessions and resources are not, and
the adapters build neither per call), and each Kubernetes call opens its own API client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

A = TypeVar("A")
B = TypeVar("B")


def together(first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """Run both reads at once and return both answers (an error in either is raised)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        later = pool.submit(second)
        return first(), later.result()


T = TypeVar("T")
R = TypeVar("R")
# Reads in flight at once for `each` (a node batch is at most 25 ids).
MAX_PARALLEL_READS = 8


def each(read: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """`read` of every item, several at once; the answers in the items' order."""
    if len(items) <= 1:
        return [read(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(len(items), MAX_PARALLEL_READS)) as pool:
        return list(pool.map(read, items))


def in_batches(read: Callable[[T], R], items: Sequence[T]) -> Iterator[list[R]]:
    """`read` of the items a batch of MAX_PARALLEL_READS at a time, each batch's answers in the items' order, on one
    pool for the whole read; a caller that stops iterating (it has its answer) starts no further batch."""
    with ThreadPoolExecutor(max_workers=MAX_PARALLEL_READS) as pool:
        for start in range(0, len(items), MAX_PARALLEL_READS):
            yield list(pool.map(read, items[start : start + MAX_PARALLEL_READS]))
