"""List pages are decoded with Python's garbage collector paused (`decode_page`): paused while any thread decodes,
resumed when the last one finishes, and left off if it was off before."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from controlplane.adapters.k8s.client import decode_page


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_a_page_decodes_as_json_and_the_collector_runs_again_afterwards():
    gc.enable()
    assert decode_page(b'{"items": [{"metadata": {"name": "a"}}]}') == {"items": [{"metadata": {"name": "a"}}]}
    assert gc.isenabled()


def test_the_collector_stays_paused_until_the_last_of_several_threads_is_done():
    gc.enable()
    inside, release = threading.Barrier(3), threading.Event()
    seen: list[bool] = []

    def slow_loads(data: bytes):
        inside.wait(timeout=5)
        seen.append(gc.isenabled())
        release.wait(timeout=5)
        return {}

    threads = [threading.Thread(target=decode_page, args=(b"{}", slow_loads)) for _ in range(2)]
    for thread in threads:
        thread.start()
    inside.wait(timeout=5)  # both decodes have begun
    assert not gc.isenabled()
    release.set()
    for thread in threads:
        thread.join(timeout=5)
    assert seen == [False, False]
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    decode_page(b"{}")
    assert not gc.isenabled()


def test_a_page_that_is_not_json_raises_and_the_collector_runs_again():
    gc.enable()
    with pytest.raises(ValueError):
        decode_page(b"<html>")
    assert gc.isenabled()
