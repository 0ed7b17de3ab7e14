"""Where an endpoint's model comes from: a request's model source resolved into the operator's
`modelSourceConfig` — the cluster's bucket filled in for an S3 path, and a training job's output found for
`{"job": "<name>"}` (train → deploy; where a job's output is, is `controlplane.core.training.outputs`' rule).
"""

from __future__ import annotations

from typing import Any

from controlplane.core.endpoints.manifest import ResolvedSource
from controlplane.core.training.outputs import JobReader, job_output
from controlplane.models.clusters import ClusterRecord
from controlplane.models.endpoints import EndpointModelSource
from controlplane.models.errors import InvalidRequestError


def resolve(record: ClusterRecord, source: EndpointModelSource, read_job: JobReader) -> ResolvedSource:
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
    output = job_output(record, str(source.job), read_job)
    return _s3(record, output.bucket, output.prefix)


def _s3(record: ClusterRecord, bucket: str, path: str) -> ResolvedSource:
    path = path.strip("/")
    storage = {"bucketName": bucket, "region": record.region}
    return ResolvedSource("s3", {"s3Storage": storage}, path or None, f"s3://{bucket}/{path}")
