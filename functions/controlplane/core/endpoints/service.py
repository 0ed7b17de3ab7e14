"""Managed inference endpoints on a cluster: create (checked against the cluster and the CRD schema), list,
detail, delete (plan, then confirm), and chat through the SageMaker endpoint the operator registers.

Reads go through the view role (`nodes`, `reads`); creating and deleting endpoint objects through the workload
writers' role (`writes`), which also checks a Hugging Face token's Secret (`core.secret_references`). Endpoints live
in the cluster's workload namespace (the S3 claim's, as jobs do). Every refusal is a 4xx whose message says what to
change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations
from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.endpoints import manifest, sources
from controlplane.core.endpoints.errors import (
    EndpointNameInUseError,
    EndpointNotFoundError,
    EndpointNotReadyError,
    RoutingImmutableError,
)
from controlplane.core.endpoints.manifest import API_VERSION, ENDPOINT_LABEL, ResolvedSource
from controlplane.core.features.required import require_addon_feature
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.paging import decode_token, encode_token, invalid_token
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, SecretGateway, WorkloadGateway
from controlplane.core.ports.model_endpoints import ModelEndpointGateway
from controlplane.core.registry import ClusterService
from controlplane.core.secret_references import require_owned_secret
from controlplane.core.training.outputs import find_job
from controlplane.core.training.schema import schema_problems
from controlplane.models.chat import ChatCompletion, ChatCompletionRequest
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.endpoints import (
    CreateEndpointRequest,
    EndpointDetail,
    EndpointKind,
    EndpointList,
    EndpointManifest,
    EndpointPod,
    EndpointState,
    EndpointSummary,
    L2CacheBackend,
)
from controlplane.models.errors import DependencyFailedError, InvalidRequestError
from controlplane.models.features import Feature
from controlplane.models.instance_types import instance_type
from controlplane.models.status import GPU_RESOURCE, INSTANCE_TYPE_LABEL

DELETE_ENDPOINT_ACTION = "delete-endpoint"
TIERED_STORAGE_ON = "Enable"


class EndpointService:
    def __init__(
        self,
        clusters: ClusterService,
        eks: Callable[[str], EksGateway],
        hyperpod: Callable[[str], HyperPodGateway],
        nodes: KubernetesGateway,
        reads: WorkloadGateway,
        writes: WorkloadGateway,
        secrets: SecretGateway,
        runtime: Callable[[str], ModelEndpointGateway],
        confirmations: Confirmations,
    ) -> None:
        self._clusters = clusters
        self._eks = eks
        self._hyperpod = hyperpod
        self._nodes = nodes
        self._reads = reads
        self._writes = writes
        self._secrets = secrets
        self._runtime = runtime
        self._confirmations = confirmations

    # --- create ------------------------------------------------------------------------------

    def render(self, cluster_tag: str, request: CreateEndpointRequest) -> EndpointManifest:
        """The object a create would submit, after every check a create makes (a dry run)."""
        record, cluster = self._cluster(cluster_tag)
        return EndpointManifest(kind=request.kind, manifest=self._checked_manifest(record, cluster, request))

    def create(self, cluster_tag: str, request: CreateEndpointRequest) -> EndpointDetail:
        """Check the request against the cluster, render and validate the object, create it, return its detail."""
        record, cluster = self._cluster(cluster_tag)
        obj = self._checked_manifest(record, cluster, request)
        if not self._writes.create(cluster, record.region, obj):
            raise _name_in_use(request.name)
        return self.get(cluster_tag, request.name)

    def _checked_manifest(
        self, record: ClusterRecord, cluster: EksCluster, request: CreateEndpointRequest
    ) -> dict[str, Any]:
        self._require_inference_operator(record, cluster)
        self._require_l2_prerequisite(record, request)
        namespace = _namespace(record)
        existing = self._find(record, cluster, request.name)
        if existing is not None:
            raise _existing(existing, request)
        self._check_placement(record, cluster, request)
        source = self._source(record, cluster, request)
        obj = manifest.render(record.clusterTag, namespace, request, source)
        problems = schema_problems(obj)
        if problems:
            raise InvalidRequestError(f"The endpoint does not match the {obj['kind']} schema: {'; '.join(problems)}.")
        return obj

    def _require_inference_operator(self, record: ClusterRecord, cluster: EksCluster) -> None:
        require_addon_feature(
            self._eks(record.region),
            record.clusterTag,
            cluster.name,
            Feature.INFERENCE_OPERATOR,
            needs="Managed endpoints need",
            addon="the HyperPod inference operator add-on",
            then=", then create the endpoint again",
        )

    def _require_l2_prerequisite(self, record: ClusterRecord, request: CreateEndpointRequest) -> None:
        l2 = request.kvCache.l2 if request.kvCache else None
        if l2 is None:
            return
        if l2.backend is L2CacheBackend.REDIS and not l2.localUrl:
            raise InvalidRequestError(
                "kvCache.l2: the redis backend needs the Redis URL; set kvCache.l2.localUrl (redis://host:port), or "
                "choose the tieredstorage backend.",
                {"field": "kvCache.l2.localUrl"},
            )
        if l2.backend is L2CacheBackend.TIERED_STORAGE:
            if l2.localUrl:
                raise InvalidRequestError(
                    "kvCache.l2.localUrl is the Redis URL; drop it for the tieredstorage backend.",
                    {"field": "kvCache.l2.localUrl"},
                )
            name = hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
            hyperpod = self._hyperpod(record.region).find_cluster(name)
            config = (hyperpod.settings.get("TieredStorageConfig") if hyperpod else None) or {}
            if config.get("Mode") != TIERED_STORAGE_ON:
                feature = Feature.TIERED_STORAGE.value
                raise InvalidRequestError(
                    f"kvCache.l2: the tieredstorage backend needs the '{feature}' feature, which cluster "
                    f"'{record.clusterTag}' does not have on. Enable it with PATCH /clusters/{record.clusterTag}/"
                    f'features {{"{feature}": {{"enabled": true}}}}, or choose the redis backend with its localUrl.',
                    {"feature": feature},
                )

    def _check_placement(self, record: ClusterRecord, cluster: EksCluster, request: CreateEndpointRequest) -> None:
        nodes = self._nodes.nodes(cluster, record.region)
        known = sorted({node.labels.get(INSTANCE_TYPE_LABEL, "") for node in nodes} - {""})
        if request.instanceType not in known:
            raise InvalidRequestError(
                f"Cluster '{record.clusterTag}' has no nodes of instance type '{request.instanceType}'; set "
                f"instanceType to one it has ({', '.join(known) or 'none yet: add an instance group first'}).",
                {"instanceType": known},
            )
        if request.model is None:
            return
        chosen = [node for node in nodes if node.labels.get(INSTANCE_TYPE_LABEL) == request.instanceType]
        facts = instance_type(request.instanceType)
        gpus = facts.gpus if facts else max(int(node.capacity.get(GPU_RESOURCE, "0")) for node in chosen)
        if request.model.gpus > gpus:
            raise InvalidRequestError(
                f"model.gpus {request.model.gpus} is more than the {gpus} GPU(s) an {request.instanceType} has; ask "
                f"for at most {gpus}, or choose a larger instance type.",
                {"gpus": gpus},
            )

    def _source(
        self, record: ClusterRecord, cluster: EksCluster, request: CreateEndpointRequest
    ) -> ResolvedSource | None:
        if request.model is None:
            return None
        namespace = _namespace(record)
        hugging_face = request.model.source.huggingFace
        if hugging_face is not None and hugging_face.tokenSecret:
            secret = (namespace, hugging_face.tokenSecret)
            require_owned_secret(self._secrets, record, cluster, secret, "model.source.huggingFace.tokenSecret")
        return sources.resolve(record, request.model.source, find_job(self._reads, cluster, record.region, namespace))

    # --- reads -------------------------------------------------------------------------------

    def list_endpoints(
        self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None
    ) -> EndpointList:
        """Both kinds, InferenceEndpointConfigs first; the page token holds the kind it continues and its token."""
        record, cluster = self._cluster(cluster_tag)
        namespace = _namespace(record)
        kinds = list(EndpointKind)
        decoded = decode_token(token) if token else [0, None]
        if not (isinstance(decoded, list) and len(decoded) == 2 and isinstance(decoded[1], str | None)):
            raise invalid_token()
        position, inner = decoded
        if not isinstance(position, int) or not 0 <= position < len(kinds):
            raise invalid_token()
        summaries: list[EndpointSummary] = []
        next_token: str | None = None
        for at in range(position, len(kinds)):
            page = self._reads.list_objects(
                cluster, record.region, API_VERSION, kinds[at].value, namespace, limit - len(summaries), inner
            )
            summaries.extend(manifest.summary(obj) for obj in page.items)
            inner = None
            if page.next_token:
                next_token = encode_token([at, page.next_token])
                break
            if len(summaries) >= limit:
                next_token = encode_token([at + 1, None]) if at + 1 < len(kinds) else None
                break
        return EndpointList(clusterTag=cluster_tag, endpoints=summaries, continue_=next_token)

    def get(self, cluster_tag: str, name: str) -> EndpointDetail:
        """State, conditions, workers and the SageMaker endpoint name."""
        record, cluster = self._cluster(cluster_tag)
        obj = self._endpoint(record, cluster, name)
        pods = self._reads.pods(cluster, record.region, _namespace(record), {ENDPOINT_LABEL: name})
        return EndpointDetail(
            **manifest.summary(obj).model_dump(),
            namespace=_namespace(record),
            sageMakerEndpointName=manifest.endpoint_name(obj),
            readyReplicas=sum(1 for pod in pods if pod.phase == "Running"),
            routing=manifest.routing(obj),
            l2Cache=manifest.l2_cache(obj),
            conditions=manifest.conditions(obj),
            pods=[EndpointPod(name=pod.name, node=pod.node, phase=pod.phase) for pod in pods],
        )

    # --- chat --------------------------------------------------------------------------------

    def chat(self, cluster_tag: str, name: str, request: ChatCompletionRequest) -> ChatCompletion:
        """An OpenAI chat completion from the endpoint's model, through its SageMaker endpoint."""
        detail = self.get(cluster_tag, name)
        if detail.state is not EndpointState.DEPLOYMENT_COMPLETE or not detail.sageMakerEndpointName:
            raise EndpointNotReadyError(
                f"Endpoint '{name}' is {detail.state.value}, not DeploymentComplete; poll inference_endpoint_get "
                f"(GET /clusters/{cluster_tag}/endpoints/{name}) until it is, then call it again.",
                {"state": detail.state.value},
            )
        record = self._clusters.get(cluster_tag)
        answer = self._runtime(record.region).invoke(detail.sageMakerEndpointName, request.openai_body())
        try:
            return ChatCompletion.model_validate(answer)
        except ValidationError:
            raise DependencyFailedError(
                f"The model behind endpoint '{name}' did not answer with an OpenAI chat completion; check that its "
                "worker serves v1/chat/completions (vLLM, SGLang and LMI do).",
            ) from None

    # --- delete (destructive: plan, then confirm) ---------------------------------------------

    def plan_delete(self, cluster_tag: str, name: str, actor: Actor) -> Plan:
        """What deleting the endpoint removes, with a single-use confirmation token."""
        detail = self.get(cluster_tag, name)
        token, expires_at = self._confirmations.issue(actor, DELETE_ENDPOINT_ACTION, f"{cluster_tag}/{name}")
        return Plan(
            actions=[_deletion(detail)],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deleting endpoint {name} ({detail.state.value}) removes its {len(detail.pods)} worker(s) and "
            f"the SageMaker endpoint {detail.sageMakerEndpointName}. Ask the person to confirm, then repeat the "
            "request with confirmationToken.",
        )

    def delete(self, cluster_tag: str, name: str, token: str, actor: Actor) -> Plan:
        """Delete the endpoint object with the token of a prior plan; the operator removes workers and registration."""
        record, cluster = self._cluster(cluster_tag)
        detail = self.get(cluster_tag, name)
        how = f"Call DELETE /clusters/{cluster_tag}/endpoints/{name} without a token"
        with self._confirmations.redeeming(token, actor, DELETE_ENDPOINT_ACTION, f"{cluster_tag}/{name}", how):
            namespace = _namespace(record)
            if not self._writes.delete_object(cluster, record.region, API_VERSION, detail.kind.value, namespace, name):
                raise _not_found(name)
        return Plan(
            dryRun=False,
            actions=[_deletion(detail)],
            message=f"Deleting endpoint {name}: the inference operator removes its workers (DeletionPending, then "
            "DeletionInProgress) and the SageMaker endpoint.",
        )

    # --- helpers -----------------------------------------------------------------------------

    def _cluster(self, cluster_tag: str) -> tuple[ClusterRecord, EksCluster]:
        record = self._clusters.get(cluster_tag)
        return record, reachable_control_plane(self._eks(record.region), record.eksClusterName, cluster_tag)

    def _find(self, record: ClusterRecord, cluster: EksCluster, name: str) -> dict[str, Any] | None:
        namespace = _namespace(record)
        for kind in EndpointKind:
            found = self._nodes.get(cluster, record.region, API_VERSION, kind.value, name, namespace)
            if found is not None:
                return found
        return None

    def _endpoint(self, record: ClusterRecord, cluster: EksCluster, name: str) -> dict[str, Any]:
        found = self._find(record, cluster, name)
        if found is None:
            raise _not_found(name)
        return found


def _namespace(record: ClusterRecord) -> str:
    """The cluster's workload namespace: the S3 claim's (where jobs run), `default` without one."""
    namespace, _, _ = str(record.storageClaim or "").rpartition("/")
    return namespace or "default"


def _existing(obj: dict[str, Any], request: CreateEndpointRequest) -> RoutingImmutableError | EndpointNameInUseError:
    """A create whose name is taken: a routing change is refused as such, anything else as a name in use."""
    live = manifest.routing(obj)
    wanted = request.routing.strategy if request.routing else None
    if live != wanted:
        has = live.value if live else "no intelligent routing"
        asks = wanted.value if wanted else "no intelligent routing"
        return RoutingImmutableError(
            f"Routing of endpoint '{request.name}' is immutable: it was created with {has} and the request asks for "
            f"{asks}. To change it, delete the endpoint (DELETE /clusters/{{clusterTag}}/endpoints/{request.name}, "
            "then confirm) and create it again with the new routing.",
            {"routing": has},
        )
    return _name_in_use(request.name)


def _deletion(detail: EndpointDetail) -> PlannedAction:
    workers = ", ".join(pod.name for pod in detail.pods) or "none"
    return PlannedAction(
        action="delete",
        resource=detail.kind.value,
        name=f"{detail.namespace}/{detail.name}",
        detail=f"{detail.state.value}; workers: {workers}; SageMaker endpoint: {detail.sageMakerEndpointName}",
    )


def _name_in_use(name: str) -> EndpointNameInUseError:
    return EndpointNameInUseError(
        f"An endpoint named '{name}' already exists; choose another name, or delete that endpoint first.",
    )


def _not_found(name: str) -> EndpointNotFoundError:
    return EndpointNotFoundError(
        f"No endpoint named '{name}'; GET /clusters/{{clusterTag}}/endpoints lists the endpoints."
    )
