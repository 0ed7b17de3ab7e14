"""Where an endpoint's model comes from: a request's model source resolved into the operator's
`modelSourceConfig` — the cluster's bucket filled in for an S3 path, and a training job's output found for
`{"job": "<name>"}` (train → deploy).

A job's output is the value of its output argument (`--output`, `--output_dir`, `--output-dir`, `--output_path`,
`--output-path`, as the recipes write them): an `s3://bucket/prefix` URI, or a directory under the S3 claim's mount
`/s3/…`, which is the same prefix of the cluster's data bucket.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from controlplane.core.endpoints.manifest import ResolvedSource
from controlplane.core.training import manifest as jobs
from controlplane.core.training.manifest import S3_MOUNT
from controlplane.models.clusters import ClusterRecord
from controlplane.models.endpoints import ModelSource
from controlplane.models.errors import InvalidRequestError
from controlplane.models.training import JobPhase

OUTPUT_FLAGS = ("--output", "--output_dir", "--output-dir", "--output_path", "--output-path")
_S3_URI = re.compile(r"^s3://(?P<bucket>[a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:/(?P<prefix>.*))?$")

# A job's name → the job object in the endpoint's namespace, or None when there is no such job.
JobReader = Callable[[str], dict[str, Any] | None]


def resolve(record: ClusterRecord, source: ModelSource, read_job: JobReader) -> ResolvedSource:
    if source.s3 is not None:
        bucket = source.s3.bucket or record.storageBucket
        if not bucket:
            raise InvalidRequestError(
                f"Cluster '{record.clusterTag}' has no data bucket; give modelSource.s3.bucket, or run the storage "
                f"stage (POST /clusters/{record.clusterTag}/storage) first.",
            )
        return _s3(record, bucket, source.s3.path)
    if source.fsx is not None:
        fsx = source.fsx
        storage = {"fileSystemId": fsx.fileSystemId}
        storage.update({k: v for k, v in (("dnsName", fsx.dnsName), ("mountName", fsx.mountName)) if v})
        return ResolvedSource("fsx", {"fsxStorage": storage}, fsx.path, f"fsx://{fsx.fileSystemId}/{fsx.path}")
    if source.huggingFace is not None:
        hf = source.huggingFace
        model: dict[str, Any] = {"modelId": hf.modelId}
        if hf.commitSha:
            model["commitSHA"] = hf.commitSha
        if hf.tokenSecret:
            model["tokenSecretRef"] = {"name": hf.tokenSecret, "key": "token"}
        return ResolvedSource("huggingface", {"huggingFaceModel": model}, None, hf.modelId)
    return _job_output(record, str(source.job), read_job)


def _s3(record: ClusterRecord, bucket: str, path: str) -> ResolvedSource:
    path = path.strip("/")
    storage = {"bucketName": bucket, "region": record.region}
    return ResolvedSource("s3", {"s3Storage": storage}, path or None, f"s3://{bucket}/{path}")


def _job_output(record: ClusterRecord, name: str, read_job: JobReader) -> ResolvedSource:
    job = read_job(name)
    if job is None:
        raise InvalidRequestError(
            f"modelSource.job: no training job named '{name}' in cluster '{record.clusterTag}'; "
            f"GET /clusters/{record.clusterTag}/jobs lists them.",
        )
    phase = jobs.phase(job)
    if phase is not JobPhase.SUCCEEDED:
        raise InvalidRequestError(
            f"modelSource.job: training job '{name}' is {phase.value}, not Succeeded; deploy its output once it has "
            "succeeded, or give modelSource.s3 with the output's path.",
        )
    output = output_path(job)
    if output is None:
        raise InvalidRequestError(
            f"modelSource.job: training job '{name}' names no output path (an {' / '.join(OUTPUT_FLAGS)} argument); "
            "give modelSource.s3 with the path its model was written to.",
        )
    if match := _S3_URI.match(output):
        return _s3(record, match["bucket"], match["prefix"] or "")
    if (output + "/").startswith(S3_MOUNT + "/") and record.storageBucket:
        return _s3(record, record.storageBucket, output[len(S3_MOUNT) :])
    raise InvalidRequestError(
        f"modelSource.job: training job '{name}' wrote its output to {output}, which is not in S3 (an s3:// URI or "
        f"under {S3_MOUNT}); copy it to S3 and give modelSource.s3.",
    )


def output_path(job: dict[str, Any]) -> str | None:
    """The value of the job container's first output argument, in `--flag=value` or `--flag value` form."""
    replica = ((job.get("spec") or {}).get("replicaSpecs") or [{}])[0]
    container = (((replica.get("template") or {}).get("spec") or {}).get("containers") or [{}])[0]
    argv = [str(arg) for arg in (container.get("command") or []) + (container.get("args") or [])]
    for index, arg in enumerate(argv):
        flag, equals, value = arg.partition("=")
        if flag in OUTPUT_FLAGS:
            if equals:
                return value or None
            return argv[index + 1] if index + 1 < len(argv) else None
    return None
