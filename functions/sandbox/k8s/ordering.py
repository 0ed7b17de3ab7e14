"""A storage bucket as a list reads it: its keys in order, with each key's object and that object's served JSON at
the same position, so a page of a large list is a slice and its body a join of stored encodings (the API server's
watch cache keeps serializations the same way), without a key hashed or an object encoded per item."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any, cast

from sandbox.k8s.objects import ObjectKey, encode_json

JsonObject = dict[str, Any]


class OrderedBucket:
    """One bucket's keys, objects and encodings by position: built when a list first reads the bucket, then kept in
    step with every write (a key that comes or goes shifts the rest, which keep their encodings)."""

    def __init__(self, bucket: dict[ObjectKey, JsonObject]) -> None:
        self.keys = sorted(bucket)
        self.objects = [bucket[key] for key in self.keys]
        # By served apiVersion, each position's JSON: None until its first read after a write.
        self._encodings: dict[str, list[bytes | None]] = {}

    def position(self, key: ObjectKey) -> int:
        """Where a stored key stands."""
        return bisect.bisect_left(self.keys, key)

    def insert(self, key: ObjectKey, obj: JsonObject) -> None:
        """``obj`` stored at a new ``key``, which takes its place in order."""
        position = self.position(key)
        self.keys.insert(position, key)
        self.objects.insert(position, obj)
        for encodings in self._encodings.values():
            encodings.insert(position, None)

    def remove(self, key: ObjectKey) -> None:
        position = self.position(key)
        del self.keys[position], self.objects[position]
        for encodings in self._encodings.values():
            del encodings[position]

    def replace(self, key: ObjectKey, obj: JsonObject) -> None:
        """``obj`` now stored at ``key`` (which stays): its encodings are made again on their next read."""
        position = self.position(key)
        self.objects[position] = obj
        for encodings in self._encodings.values():
            encodings[position] = None

    def encoded(self, api_version: str, positions: Sequence[int]) -> list[bytes]:
        """The JSON of the objects at ``positions`` served at ``api_version``, each encoded once until replaced."""
        encodings = self._encodings.get(api_version)
        if encodings is None:
            encodings = self._encodings[api_version] = [None] * len(self.keys)
        if isinstance(positions, range) and positions.step == 1:
            page = encodings[positions.start : positions.stop]
            if None not in page:  # the usual case: a slice, checked and joined in C
                return cast(list[bytes], page)
        for position in positions:
            if encodings[position] is None:
                obj = self.objects[position]
                served = obj if obj["apiVersion"] == api_version else {**obj, "apiVersion": api_version}
                encodings[position] = encode_json(served)
        return cast(list[bytes], [encodings[position] for position in positions])
