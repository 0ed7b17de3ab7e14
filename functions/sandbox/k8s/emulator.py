"""Many emulated clusters behind one lock: what the HTTP layer, the simulators and tests share.

:class:`KubernetesEmulator` creates and drops clusters, decides who may call them (an authorizer), runs each
request or programmatic write as one transaction on a cluster's :class:`~sandbox.k8s.store.ObjectStore` and then
tells listeners about the writes. :class:`ClusterStore` is the programmatic, thread-safe access to one cluster's
objects that simulators (HyperPod's nodes) and tests use.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sandbox.k8s.buckets import Event
from sandbox.k8s.objects import copy_json, object_key, present
from sandbox.k8s.rbac import ApiAccess
from sandbox.k8s.selectors import parse_label_selector
from sandbox.k8s.store import ObjectStore, Webhook

JsonObject = dict[str, Any]
Listener = Callable[[str, str, JsonObject], None]
# (cluster, bearer token, what the call does) → may it?
Authorizer = Callable[[str, str, ApiAccess], bool | None]
# (cluster, namespace, service[:port], path, method, body) → (status, JSON text): a Service's answer via the proxy.
ServiceProxy = Callable[[str, str, str, str, str, bytes], tuple[int, str]]

# How long a list's continue token stays valid: the API server keeps a list's place until etcd compacts its revision,
# every 5 minutes by default, and then answers 410 Gone ("a continue token will expire after a short amount of time (by
# default 5 minutes)": https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks).
CONTINUE_LIFETIME_SECONDS = 300.0

_LOG = logging.getLogger(__name__)
_T = TypeVar("_T")


class KubernetesEmulator:
    """Emulated Kubernetes API servers for any number of clusters.

    Thread-safe: the HTTP app and sandbox threads may use it concurrently. Listeners run on the writing
    thread after the write is committed and the lock released, so they may write back to the store.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._clusters: dict[str, ObjectStore] = {}
        self._listeners: list[Listener] = []
        self._webhooks: list[Webhook] = []
        self._authorizer: Authorizer | None = None
        self._service_proxy: ServiceProxy | None = None
        self._continue_lifetime = CONTINUE_LIFETIME_SECONDS

    def add_cluster(self, name: str) -> None:
        """Create the cluster's store (with its initial namespaces) unless it exists."""
        with self._lock:
            self._cluster(name)

    def remove_cluster(self, name: str) -> None:
        """Drop a cluster and everything in it, without notifying listeners."""
        with self._lock:
            self._clusters.pop(name, None)

    def clusters(self) -> list[str]:
        with self._lock:
            return sorted(self._clusters)

    def store(self, cluster: str) -> ClusterStore:
        """Programmatic access to a cluster's objects (creating the cluster on first use)."""
        self.add_cluster(cluster)
        return ClusterStore(self, cluster)

    def set_authorizer(self, authorizer: Authorizer | None) -> None:
        """Decide per ``(cluster, token, access)`` whether a well-formed token may make a call (None: all may)."""
        with self._lock:
            self._authorizer = authorizer

    def authorized(self, cluster: str, token: str, access: ApiAccess) -> bool | None:
        """Whether the call is allowed; None when the cluster does not know the token's signer at all."""
        with self._lock:
            authorizer = self._authorizer
        return True if authorizer is None else authorizer(cluster, token, access)

    def set_continue_lifetime(self, seconds: float) -> None:
        """How long a list's continue token stays valid (tests shorten it to see a token expire)."""
        with self._lock:
            self._continue_lifetime = seconds

    def continue_lifetime(self) -> float:
        with self._lock:
            return self._continue_lifetime

    def set_service_proxy(self, proxy: ServiceProxy | None) -> None:
        """Who answers requests to `…/services/{name}/proxy/{path}` (None: no Service answers)."""
        with self._lock:
            self._service_proxy = proxy

    def proxy(self, cluster: str, namespace: str, service: str, path: str, method: str, body: bytes) -> tuple[int, str]:
        """A Service's answer through the API server's proxy (503 when nothing serves behind it)."""
        with self._lock:
            proxy = self._service_proxy
            self._cluster(cluster)
        if proxy is None:
            return 503, '{"kind": "Status", "message": "no endpoints available for service", "code": 503}'
        return proxy(cluster, namespace, service, path, method, body)

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(cluster, event_type, obj)`` after every write (ADDED, MODIFIED or DELETED)."""
        with self._lock:
            self._listeners.append(listener)

    def add_webhook(self, webhook: Webhook) -> None:
        """Run ``webhook`` on every API create (POST or server-side apply), in every cluster, before it is stored."""
        with self._lock:
            self._webhooks.append(webhook)

    def set_pod_log(self, cluster: str, namespace: str, pod: str, text: str) -> None:
        """The text served as the pod's log (until the pod is deleted)."""
        with self._lock:
            self._cluster(cluster).logs[(namespace, pod)] = text

    def transact(self, cluster: str, operation: Callable[[ObjectStore, list[Event]], _T]) -> _T:
        """Run ``operation`` on the cluster under the lock, then tell the listeners about the writes it made."""
        events: list[Event] = []
        with self._lock:
            result = operation(self._cluster(cluster), events)
            listeners = list(self._listeners)
        for event_type, obj in events:
            for listener in listeners:
                try:
                    listener(cluster, event_type, copy_json(obj))
                except Exception:  # noqa: BLE001 - a broken listener must not undo a committed write
                    _LOG.exception("k8s emulator listener failed on %s of %s", event_type, obj.get("kind"))
        return result

    def _cluster(self, name: str) -> ObjectStore:
        if name not in self._clusters:
            self._clusters[name] = ObjectStore(self._webhooks)
        return self._clusters[name]


class ClusterStore:
    """Programmatic, thread-safe access to one cluster's objects, for simulators and tests.

    Writes skip API validation (names, namespaces, status-subresource rules) but keep resource versions,
    CRD registration, cascading deletes and listener notifications consistent with HTTP writes.
    Returned objects are copies the caller owns. A kind the cluster does not serve raises LookupError,
    a malformed label selector ValueError.
    """

    def __init__(self, emulator: KubernetesEmulator, cluster: str) -> None:
        self._emulator = emulator
        self._cluster = cluster

    def get(self, group: str, version: str, plural: str, namespace: str | None, name: str) -> JsonObject | None:
        """One object, or None when absent (``namespace`` is ignored for cluster-scoped kinds)."""

        def read(store: ObjectStore, _: list[Event]) -> JsonObject | None:
            kind = store.served(group, version, plural)
            obj = store.get(kind, namespace, name)
            return None if obj is None else present(kind, obj)

        return self._emulator.transact(self._cluster, read)

    def list(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None = None,
        label_selector: str | None = None,
    ) -> list[JsonObject]:
        """Objects of a kind in ``namespace`` (None: all namespaces), filtered by a label selector."""
        requirements = parse_label_selector(label_selector or "")

        def read(store: ObjectStore, _: list[Event]) -> list[JsonObject]:
            kind = store.served(group, version, plural)
            scope = namespace if kind.namespaced else None
            return [present(kind, obj) for obj in store.select(kind, scope, requirements)]

        return self._emulator.transact(self._cluster, read)

    def any(self, group: str, version: str, plural: str, predicate: Callable[[JsonObject], bool]) -> bool:
        """Whether an object of a kind (in any namespace) satisfies ``predicate``, which is shown the stored objects
        themselves, under the lock, until one does: no copies, so it must neither keep nor change them."""

        def read(store: ObjectStore, _: list[Event]) -> bool:
            return any(predicate(obj) for obj in store.select(store.served(group, version, plural), None))

        return self._emulator.transact(self._cluster, read)

    def put(self, obj: JsonObject) -> JsonObject:
        """Create or replace ``obj`` (routed by apiVersion and kind); an unchanged write is a no-op.

        A new object gets uid, creationTimestamp and generation; every real change bumps resourceVersion,
        and generation too when anything outside metadata and status changed.
        """

        def write(store: ObjectStore, events: list[Event]) -> JsonObject:
            kind, stored = store.put(copy_json(obj), events)
            return present(kind, stored)

        return self._emulator.transact(self._cluster, write)

    def create(self, obj: JsonObject) -> JsonObject:
        """Create ``obj`` as a controller does through the API (a ReplicaSet its pods): the admission webhooks see it
        first. 409 (ApiError) when it exists."""

        def write(store: ObjectStore, events: list[Event]) -> JsonObject:
            kind = store.kind_for(obj.get("apiVersion", ""), obj.get("kind", ""))
            if kind is None:
                raise LookupError(f"unknown kind {obj.get('kind')!r} in {obj.get('apiVersion')!r}")
            created = store.create(kind, obj["metadata"].get("namespace"), copy_json(obj), events)
            return present(kind, created)

        return self._emulator.transact(self._cluster, write)

    def delete(self, group: str, version: str, plural: str, namespace: str | None, name: str) -> JsonObject | None:
        """Delete an object (cascading like the API does); returns it, or None when it was absent."""

        def write(store: ObjectStore, events: list[Event]) -> JsonObject | None:
            kind = store.served(group, version, plural)
            obj = store.get(kind, namespace, name)
            if obj is None:
                return None
            return present(kind, store.remove(kind.storage, object_key(obj), events))

        return self._emulator.transact(self._cluster, write)

    def count(self) -> int:
        """How many objects the cluster holds, the four initial namespaces included."""
        return self._emulator.transact(self._cluster, lambda store, _: store.count())
