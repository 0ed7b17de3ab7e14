"""A stdlib sampling profiler for the bench: where a call's time goes, across every thread of the process.

The sandbox answers the product's reads from threads of the same process (uvicorn serves the Kubernetes emulator,
moto answers boto3 in the caller's thread), so a profile of the calling thread alone would show the emulator as
socket waits. Every few milliseconds :class:`Sampler` takes each busy thread's stack (``sys._current_frames``) and
charges the sample to the innermost frame of a known area (the product, the Kubernetes emulator, the rest of the
sandbox, moto, the ``kubernetes`` client...); frames waiting on a lock, a socket or a selector are idle and not
counted.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from types import FrameType

# Innermost-first: a frame is charged to the first area whose path fragment its file contains.
AREAS = (
    ("sandbox/k8s/", "Kubernetes emulator"),
    ("sandbox/", "sandbox (AWS simulators)"),
    ("moto/", "moto"),
    ("controlplane/", "product"),
    ("api/", "product"),
    ("kubernetes/", "kubernetes client"),
    ("pydantic", "pydantic"),
    ("botocore/", "botocore"),
    ("starlette/", "starlette / uvicorn"),
    ("uvicorn/", "starlette / uvicorn"),
    ("urllib3/", "urllib3"),
    ("json/", "json"),
)
# Functions whose frames mean the thread is blocked, not working.
IDLE = frozenset(
    {"wait", "select", "poll", "_recv_into", "recv_into", "read", "readinto", "accept", "sleep", "_worker"}
)


def _area(frame: FrameType | None) -> str | None:
    """The area of the innermost frame that belongs to one, or None for an idle thread."""
    if frame is not None and frame.f_code.co_name in IDLE:
        return None
    while frame is not None:
        path = frame.f_code.co_filename.replace("\\", "/")
        for fragment, area in AREAS:
            if fragment in path:
                return area
        frame = frame.f_back
    return "other"


class Sampler:
    """Samples every other thread while active (``with Sampler() as sampler: ...``), then :meth:`shares`."""

    def __init__(self, interval: float = 0.002) -> None:
        self._interval = interval
        self._samples: Counter[str] = Counter()
        self._functions: Counter[str] = Counter()
        self._running = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self._running = True
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._running = False
        self._thread.join()

    def _run(self) -> None:
        me = threading.get_ident()
        while self._running:
            for ident, frame in sys._current_frames().items():
                if ident != me and (area := _area(frame)) is not None:
                    self._samples[area] += 1
                    code = frame.f_code
                    self._functions[f"{code.co_filename.rsplit('/', 2)[-1]}:{code.co_name}"] += 1
            time.sleep(self._interval)

    def shares(self) -> str:
        """The busy samples per area, largest first, as percentages."""
        total = sum(self._samples.values()) or 1
        return ", ".join(f"{area} {count * 100 // total}%" for area, count in self._samples.most_common(5))

    def hottest(self, count: int = 8) -> str:
        """The innermost functions seen most often, as percentages of the busy samples."""
        total = sum(self._functions.values()) or 1
        return ", ".join(f"{name} {n * 100 // total}%" for name, n in self._functions.most_common(count))
