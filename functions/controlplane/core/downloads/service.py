"""Start a download into a cluster's S3 claim (an operation), and list the claim's contents by prefix.

A request's token goes into a Kubernetes Secret in the claim's namespace before the operation starts (through
the jobs role); the operation's input names the Secret only. A Secret the request names instead must be the control
plane's (`core.secret_references`), on a start and on a resume. The download itself is the workflow's
(`core.downloads.steps`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from controlplane.core import deadlines
from controlplane.core.auth import Actor
from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.downloads.manifest import job_name, token_secret
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.kubernetes import SecretGateway, WorkloadGateway
from controlplane.core.ports.storage import BucketGateway
from controlplane.core.registry import ClusterService
from controlplane.core.secret_references import require_owned_secret
from controlplane.core.training.service import StorageClaimMissingError
from controlplane.models.clusters import ClusterRecord, Plan
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.downloads import DownloadPlan, DownloadRequest, StorageContents, StorageObject
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.operations import Operation, OperationKind
from controlplane.models.workflow import DownloadToStorageInput


class DownloadService:
    def __init__(
        self,
        clusters: ClusterService,
        operations: OperationService,
        eks: Callable[[str], EksGateway],
        secrets_writer: WorkloadGateway,
        secrets: SecretGateway,
        buckets: Callable[[str], BucketGateway],
    ) -> None:
        self._clusters = clusters
        self._operations = operations
        self._eks = eks
        self._secrets_writer = secrets_writer
        self._secrets = secrets
        self._buckets = buckets

    def start(self, cluster_tag: str, request: DownloadRequest, actor: Actor) -> Operation:
        """The download's operation; with a token, the Secret that holds it first (removed if the start fails)."""
        record = self._with_claim(cluster_tag)
        namespace, claim = claim_of(record)
        name = job_name(secrets.token_hex(4), request.repoId)
        plan = DownloadPlan(
            jobName=name,
            namespace=namespace,
            claimName=claim,
            bucketName=str(record.storageBucket),
            repoId=request.repoId,
            repoType=request.repoType,
            revision=request.revision,
            prefix=request.target_prefix,
            tokenSecret=request.tokenSecret or (f"{name}-token" if request.token is not None else None),
            deadlineSeconds=int(deadlines.download(request.sizeGiB).total_seconds()),
        )
        if request.token is None:
            self._check_token_secret(record, plan)
            return self._operations.start(record, actor, OperationKind.DOWNLOAD_TO_STORAGE, download=plan)
        cluster = self._cluster(record)
        secret = token_secret(str(plan.tokenSecret), namespace, request.token.get_secret_value())
        self._secrets_writer.create(cluster, record.region, secret)
        try:
            return self._operations.start(record, actor, OperationKind.DOWNLOAD_TO_STORAGE, download=plan)
        except BaseException:
            self._secrets_writer.delete_object(cluster, record.region, "v1", "Secret", namespace, str(plan.tokenSecret))
            raise

    resumes = frozenset({OperationKind.DOWNLOAD_TO_STORAGE})

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Before a resume: the cluster still has the storage claim (and bucket) the download writes into, and its
        token's Secret, if it names one, is still the control plane's."""
        plan = DownloadToStorageInput.model_validate(operation.input).download
        record = self._with_claim(record.clusterTag)
        if claim_of(record) != (plan.namespace, plan.claimName) or record.storageBucket != plan.bucketName:
            raise ClusterNotReadyError(
                f"The download writes into claim {plan.namespace}/{plan.claimName} (bucket {plan.bucketName}), which "
                f"cluster '{record.clusterTag}' no longer mounts; start a new download into its current storage.",
                {"storageClaim": record.storageClaim, "storageBucket": record.storageBucket},
            )
        self._check_token_secret(record, plan)
        return Plan(actions=[])

    def list_contents(
        self, cluster_tag: str, prefix: str = "", limit: int = DEFAULT_PAGE_SIZE, token: str | None = None
    ) -> StorageContents:
        """A page of the claim's bucket under `prefix` (the claim mounts the bucket's root at /s3)."""
        record = self._with_claim(cluster_tag)
        bucket = str(record.storageBucket)
        page = self._buckets(record.region).list_objects(bucket, prefix, limit, token)
        objects = [StorageObject(key=o.key, size=o.size, lastModified=o.last_modified) for o in page.items]
        return StorageContents(
            clusterTag=cluster_tag, bucketName=bucket, prefix=prefix, objects=objects, continue_=page.next_token
        )

    def _with_claim(self, cluster_tag: str) -> ClusterRecord:
        record = self._clusters.get(cluster_tag)
        if not record.storageClaim or not record.storageBucket:
            raise StorageClaimMissingError(
                f"Cluster '{cluster_tag}' has no S3 storage claim yet; run the storage stage "
                f"(POST /clusters/{cluster_tag}/storage) first.",
            )
        return record

    def _check_token_secret(self, record: ClusterRecord, plan: DownloadPlan) -> None:
        if plan.tokenSecret:
            secret = (plan.namespace, plan.tokenSecret)
            require_owned_secret(self._secrets, record, self._cluster(record), secret, "tokenSecret", "token")

    def _cluster(self, record: ClusterRecord) -> EksCluster:
        return reachable_control_plane(self._eks(record.region), record.eksClusterName, record.clusterTag)


def claim_of(record: ClusterRecord) -> tuple[str, str]:
    """(namespace, name) of the cluster's S3 claim: downloads run in the claim's namespace."""
    namespace, _, name = str(record.storageClaim).rpartition("/")
    return namespace or "default", name
