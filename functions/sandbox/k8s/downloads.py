"""A simulated downloader: the control plane's download Jobs put the repository's files into the claim's bucket.

What it does, per download Job (one thread each, started when the Job is created):
- after `seconds` of simulated download time, finds the bucket behind the Job's claim (claim → volume → the S3
  CSI volume's `bucketName`) and puts `config.json` and `README.md` under the Job's `TARGET` (`/s3/<prefix>/<repo>`
  → key `<prefix>/<repo>/…`) in the sandbox's S3;
- marks the Job Complete (`status.succeeded` 1), or, when a fault was set for its repository
  (:meth:`fail`, `POST /sandbox/download-faults`), Failed with `BackoffLimitExceeded` and the fault's message. A
  fault fails one download, so resuming the operation succeeds.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from datetime import UTC, datetime
from typing import Any

import boto3

from controlplane.core.downloads.manifest import DOWNLOAD_LABEL, MOUNT_PATH
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator

JsonObject = dict[str, Any]
_LOG = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class DownloaderSimulation:
    def __init__(self, emulator: KubernetesEmulator, seconds: float) -> None:
        self._emulator = emulator
        # How long a simulated download takes.
        self.seconds = seconds
        self._lock = threading.Lock()
        self._faults: dict[str, str] = {}

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)

    def fail(self, repo_id: str, message: str = "401 Client Error: the repository is gated; pass a token") -> None:
        """Fail the next download of `repo_id` with `message`."""
        with self._lock:
            self._faults[repo_id] = message

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if event_type != "ADDED" or obj.get("apiVersion") != "batch/v1" or obj.get("kind") != "Job":
            return
        if DOWNLOAD_LABEL not in (obj["metadata"].get("labels") or {}):
            return
        key = (cluster, obj["metadata"].get("namespace", "default"), obj["metadata"]["name"])
        threading.Thread(target=self._run, args=(key,), daemon=True, name=f"download-{key[2]}").start()

    def _run(self, key: tuple[str, str, str]) -> None:
        try:
            time.sleep(self.seconds)
            self._finish(*key)
        except LookupError:
            pass  # the Job (or its cluster) went away
        except Exception:  # noqa: BLE001 - a simulator thread must not die silently
            _LOG.exception("downloader simulator failed on %s", key)

    def _finish(self, cluster: str, namespace: str, name: str) -> None:
        store = self._emulator.store(cluster)
        job = store.get("batch", "v1", "jobs", namespace, name)
        if job is None:
            raise LookupError(name)
        pod = job["spec"]["template"]["spec"]
        env = {item["name"]: item.get("value") for item in pod["containers"][0].get("env", [])}
        repo_id = str(env["REPO_ID"])
        with self._lock:
            fault = self._faults.pop(repo_id, None)
        if fault is None:
            claim = next(
                v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if "persistentVolumeClaim" in v
            )
            self._put_files(store, namespace, claim, str(env["TARGET"]).removeprefix(f"{MOUNT_PATH}/"), repo_id)
        job = store.get("batch", "v1", "jobs", namespace, name)
        if job is None:
            raise LookupError(name)
        now = _now()
        if fault is None:
            status = {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True", "lastTransitionTime": now}]}
        else:
            condition = {
                "type": "Failed",
                "status": "True",
                "reason": "BackoffLimitExceeded",
                "message": f"Job has reached the specified backoff limit: {fault}",
                "lastTransitionTime": now,
            }
            status = {"failed": int(job["spec"].get("backoffLimit", 0)) + 1, "conditions": [condition]}
        store.put({**job, "status": {"startTime": now, "completionTime": now, **status}})

    @staticmethod
    def _put_files(store: ClusterStore, namespace: str, claim: str, key_prefix: str, repo_id: str) -> None:
        """The repository's files in the bucket behind `claim` (its PV's S3 CSI volume)."""
        bound = store.get("", "v1", "persistentvolumeclaims", namespace, claim)
        volume = store.get("", "v1", "persistentvolumes", None, str((bound or {}).get("spec", {}).get("volumeName")))
        if volume is None:
            raise LookupError(claim)
        csi = volume["spec"]["csi"]
        options = volume["spec"].get("mountOptions") or []
        region = next((o.split()[1] for o in options if o.startswith("region ")), "us-west-2")
        s3 = boto3.client("s3", region_name=region)
        bucket = csi["volumeAttributes"]["bucketName"]
        config = json.dumps({"_name_or_path": repo_id, "model_type": "sandbox"}).encode()
        s3.put_object(Bucket=bucket, Key=f"{key_prefix}/config.json", Body=config)
        s3.put_object(Bucket=bucket, Key=f"{key_prefix}/README.md", Body=f"# {repo_id}\n".encode())
