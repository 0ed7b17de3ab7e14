"""Self-managed model servers on a cluster: deploy (from a serving command or a training job's output), list,
detail, update (replicas, image; scaling to zero: plan, then confirm), delete (plan, then confirm), the model
services, and a chat completion.

Reads go through the view role (`objects`, `reads`), which may not read Secrets; writes and calls to a server
through the jobs role, whose RBAC (`core.workload_access`) allows exactly the model servers' objects and the service
proxy, and a token Secret's check (`core.secret_references`). Every refusal is a 4xx whose message says what to
change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from pydantic import ValidationError

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations
from controlplane.core.downloads.manifest import token_secret
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, SecretGateway, WorkloadGateway
from controlplane.core.ports.queues import KueueGateway
from controlplane.core.ports.serving import HttpAnswer, ServingGateway
from controlplane.core.registry import ClusterService
from controlplane.core.secret_references import require_owned_secret
from controlplane.core.serving import command as commands
from controlplane.core.serving import manifest, pool, queueing
from controlplane.core.serving.listed_queue import with_queued_listed
from controlplane.core.serving.manifest import DEPLOYMENT_API, EXPOSURE_LABEL, MODEL_LABEL, SERVICE_API
from controlplane.core.serving.placement import check_placement
from controlplane.core.serving.scaling import ScaleToZero
from controlplane.core.serving.target import ServingTarget, find_server, resolve
from controlplane.core.team_targets import TeamTargets, workload_namespace
from controlplane.core.training.outputs import find_job, job_output
from controlplane.models.chat import ChatCompletion, ChatCompletionRequest
from controlplane.models.clusters import Plan, PlannedAction
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.errors import ConflictError, DependencyFailedError, InvalidRequestError, NotFoundError
from controlplane.models.serving import (
    DeploymentDetail,
    DeploymentList,
    DeploymentUpdate,
    DeployModelRequest,
    ServiceList,
    ServiceType,
    UpdateDeploymentRequest,
)

DELETE_DEPLOYMENT_ACTION = "delete-deployment"
CHAT_PATH = "/v1/chat/completions"


class DeploymentNotFoundError(NotFoundError):
    code = "DeploymentNotFound"


class DeploymentNameInUseError(ConflictError):
    code = "DeploymentNameInUse"


class ModelServiceNotFoundError(NotFoundError):
    code = "ModelServiceNotFound"


class ModelNotReadyError(ConflictError):
    code = "ModelNotReady"


class ModelServerError(DependencyFailedError):
    code = "ModelServerError"


class ModelServerService:
    def __init__(
        self,
        clusters: ClusterService,
        eks: Callable[[str], EksGateway],
        objects: KubernetesGateway,
        reads: ServingGateway,
        writes: ServingGateway,
        creates: WorkloadGateway,
        secrets: SecretGateway,
        confirmations: Confirmations,
        targets: TeamTargets,
        queues: KueueGateway,
    ) -> None:
        self._clusters = clusters
        self._eks = eks
        self._objects = objects
        self._reads = reads
        self._writes = writes
        self._creates = creates
        self._secrets = secrets
        self._confirmations = confirmations
        self._targets = targets
        self._queues = queues
        self._scale_to_zero = ScaleToZero(confirmations, reads)

    # --- deploy ------------------------------------------------------------------------------

    def plan_deploy(self, cluster_tag: str, request: DeployModelRequest) -> Plan:
        """What deploying would create, checked against the cluster, with no side effect."""
        target, objects = self._render(cluster_tag, request)
        actions = [_action("create", obj) for obj in objects]
        if request.huggingFaceToken is not None:
            secret = manifest.token_secret_name(request.name)
            actions.insert(0, PlannedAction(action="create", resource="Secret", name=f"{target.namespace}/{secret}"))
        return Plan(actions=actions, message=f"Deploying {request.name} creates these objects.")

    def deploy(self, cluster_tag: str, request: DeployModelRequest) -> DeploymentDetail:
        """Check the request against the cluster, create the token's Secret, the Deployment and its Service."""
        target, objects = self._render(cluster_tag, request)
        if request.huggingFaceToken is not None:
            secret = token_secret(
                manifest.token_secret_name(request.name), target.namespace, request.huggingFaceToken.get_secret_value()
            )
            self._creates.create(target.cluster, target.region, secret)
        for obj in objects:
            if not self._creates.create(target.cluster, target.region, obj):
                raise _name_in_use(request.name, target.namespace)
        return self.get(cluster_tag, request.name)

    def _render(self, cluster_tag: str, request: DeployModelRequest) -> tuple[ServingTarget, list[dict[str, Any]]]:
        parsed = commands.parse(request.command, request.image, request.port, names_model=request.modelSource is None)
        commands.check_gpus(parsed, request.gpus)
        target = resolve(self._clusters, self._eks, cluster_tag)
        check_placement(self._objects, target, request)
        team = self._targets(target.record, target.cluster, request.team, request.priority) if request.team else None
        found = find_server(self._reads, target, request.name)
        if found is not None:
            raise _name_in_use(request.name, found[0].namespace)
        source_uri = None
        if request.modelSource is not None:
            path, source_uri = self._job_output(target, request.modelSource.job)
            parsed = parsed.with_model(path)
        target = replace(target, namespace=team.namespace) if team else target
        if self._deployment(target, request.name) is not None or (
            request.serviceType != ServiceType.POOL
            and self._objects.get(target.cluster, target.region, SERVICE_API, "Service", request.name, target.namespace)
        ):
            raise _name_in_use(request.name, target.namespace)
        if request.huggingFaceTokenSecret is not None:
            named = (target.namespace, request.huggingFaceTokenSecret)
            field = "huggingFaceTokenSecret"
            require_owned_secret(self._secrets, target.record, target.cluster, named, field, "huggingFaceToken")
        secret = request.huggingFaceTokenSecret or (
            manifest.token_secret_name(request.name) if request.huggingFaceToken is not None else None
        )
        labels = team.labels if team else {}
        placement = manifest.ServerPlacement(target.namespace, target.claim, secret, source_uri, labels)
        objects = [manifest.deployment(request, parsed, placement)]
        if request.serviceType != ServiceType.POOL:
            external = request.serviceType == ServiceType.EXTERNAL
            objects.append(manifest.service(request.name, target.namespace, request.name, parsed.port, external))
        return target, objects

    def _job_output(self, target: ServingTarget, job_name: str) -> tuple[str, str]:
        """(the path the server reads the job's output at, its S3 URI): the output must be in the claim's bucket. The
        job is found by name in the claim's namespace or a team's (`find_job`, read as the jobs role, which lists
        jobs)."""
        read_job = find_job(self._creates, target.cluster, target.region, target.namespace)
        output = job_output(target.record, job_name, read_job)
        bucket = target.record.storageBucket
        if not target.claim or output.bucket != bucket:
            raise InvalidRequestError(
                f"modelSource.job: training job '{job_name}' wrote its output to {output.uri}, which the cluster's S3 "
                f"claim ({f'bucket {bucket}' if target.claim else 'none yet'}) does not hold; give the model path in "
                "the command instead."
            )
        return f"{manifest.S3_MOUNT}/{output.prefix}", output.uri

    # --- reads -------------------------------------------------------------------------------

    def list_deployments(
        self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None
    ) -> DeploymentList:
        target = resolve(self._clusters, self._eks, cluster_tag)
        labels = {MODEL_LABEL: None}
        page = self._reads.select(
            target.cluster, target.region, DEPLOYMENT_API, "Deployment", None, labels, limit, token
        )
        deployments = [manifest.summary(item) for item in page.items if _ours(item, target)]
        deployments = with_queued_listed(self._reads, self._queues, target.cluster, target.region, deployments)
        return DeploymentList(clusterTag=cluster_tag, deployments=deployments, continue_=page.next_token)

    def get(self, cluster_tag: str, name: str) -> DeploymentDetail:
        """Replicas ready of those asked for, and each pod with its node, readiness and (pool) binding."""
        target, found = self._require(cluster_tag, name)
        pods = self._pods(target, {MODEL_LABEL: name})
        [summary] = queueing.with_queued(
            [manifest.summary(found)],
            lambda: pods,
            lambda: self._queues.workloads(target.cluster, target.region, target.namespace),
        )
        return DeploymentDetail(
            **summary.model_dump(),
            command=list(manifest.container(found).get("command") or []),
            modelSourceUri=manifest.settings(found).get("modelSourceUri"),
            pods=[manifest.serving_pod(pod) for pod in pods],
        )

    def services(
        self, cluster_tag: str, public: bool | None = None, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None
    ) -> ServiceList:
        """The model services (`public` True: behind a load balancer; False: cluster-internal) with readiness."""
        target = resolve(self._clusters, self._eks, cluster_tag)
        labels: dict[str, str | None] = {MODEL_LABEL: None}
        if public is not None:
            labels[EXPOSURE_LABEL] = "external" if public else "internal"
        page = self._reads.select(target.cluster, target.region, SERVICE_API, "Service", None, labels, limit, token)
        found = [
            manifest.model_service(obj, self._ready_pods(replace(target, namespace=obj["metadata"]["namespace"]), obj))
            for obj in page.items
            if _ours(obj, target)
        ]
        return ServiceList(clusterTag=cluster_tag, services=found, continue_=page.next_token)

    # --- update (explicit diff) ----------------------------------------------------------------

    def update(
        self,
        cluster_tag: str,
        name: str,
        request: UpdateDeploymentRequest,
        dry_run: bool,
        token: str | None,
        actor: Actor,
    ) -> DeploymentUpdate:
        """Change only the fields given whose live value differs; say per field what happened. Scaling a running
        server to zero stops it: that needs the token of its plan (without one, the refusal carries the plan)."""
        target, found = self._require(cluster_tag, name)
        current = manifest.summary(found)
        changes: dict[str, Any] = {}
        patch: dict[str, Any] = {}
        if request.replicas is not None:
            changes["replicas"] = "unchanged" if request.replicas == current.replicas else "updated"
            if request.replicas < current.replicas and current.serviceType == ServiceType.POOL:
                pool.check_scale_in(name, request.replicas, self._pods(target, {MODEL_LABEL: name}))
            if changes["replicas"] == "updated":
                patch["spec"] = {"replicas": request.replicas}
        if request.image is not None:
            changes["image"] = "unchanged" if request.image == current.image else "updated"
            if changes["image"] == "updated":
                container = {**manifest.container(found), "image": request.image}
                template = {"spec": {"containers": [container]}}
                patch["spec"] = {**patch.get("spec", {}), "template": template}
        if patch and not dry_run:
            with self._scale_to_zero.confirmed(target, name, request, current.replicas, token, actor):
                self._writes.patch(
                    target.cluster, target.region, DEPLOYMENT_API, "Deployment", target.namespace, name, patch
                )
        return DeploymentUpdate(deployment=self.get(cluster_tag, name), changes=changes, dryRun=dry_run)

    # --- delete (destructive: plan, then confirm) ---------------------------------------------

    def plan_delete(self, cluster_tag: str, name: str, actor: Actor) -> Plan:
        target, found = self._require(cluster_tag, name)
        actions = self._deletions(target, found, name)
        token, expires_at = self._confirmations.issue(actor, DELETE_DEPLOYMENT_ACTION, f"{cluster_tag}/{name}")
        return Plan(
            actions=actions,
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deleting {name} stops its model server and removes its Services; callers lose it. Ask the "
            "person to confirm, then repeat the request with confirmationToken.",
        )

    def delete(self, cluster_tag: str, name: str, token: str, actor: Actor) -> Plan:
        target, found = self._require(cluster_tag, name)
        actions = self._deletions(target, found, name)
        how = f"Call DELETE /clusters/{cluster_tag}/deployments/{name} without a token"
        with self._confirmations.redeeming(token, actor, DELETE_DEPLOYMENT_ACTION, f"{cluster_tag}/{name}", how):
            for action in actions:
                api = DEPLOYMENT_API if action.resource == "Deployment" else "v1"
                short = action.name.rpartition("/")[2]
                self._creates.delete_object(
                    target.cluster, target.region, api, action.resource, target.namespace, short
                )
        return Plan(dryRun=False, actions=actions, message=f"Deleted model server {name} and its Services.")

    def _deletions(self, target: ServingTarget, found: dict[str, Any], name: str) -> list[PlannedAction]:
        pods = self._pods(target, {MODEL_LABEL: name})
        services = self._reads.select(
            target.cluster, target.region, SERVICE_API, "Service", target.namespace, {MODEL_LABEL: name}, 100, None
        ).items
        actions = [
            PlannedAction(
                action="delete",
                resource="Deployment",
                name=f"{target.namespace}/{name}",
                detail=f"{manifest.summary(found).replicas} replica(s); pods: "
                f"{', '.join(pod['metadata']['name'] for pod in pods) or 'none'}",
            ),
            *(_action("delete", obj) for obj in services),
        ]
        secret = manifest.token_secret_name(name)
        if manifest.token_secret_of(found) == secret:
            actions.append(PlannedAction(action="delete", resource="Secret", name=f"{target.namespace}/{secret}"))
        return actions

    # --- calling a model ----------------------------------------------------------------------

    def chat(self, cluster_tag: str, name: str, request: ChatCompletionRequest) -> ChatCompletion:
        """An OpenAI-compatible chat completion from one of the cluster's model services: through the API server's
        service proxy for an internal Service, through its load balancer for an external one."""
        target = resolve(self._clusters, self._eks, cluster_tag)
        target = (find_server(self._reads, target, name) or (target, {}))[0]
        found = self._objects.get(target.cluster, target.region, SERVICE_API, "Service", name, target.namespace)
        if found is None or MODEL_LABEL not in ((found.get("metadata") or {}).get("labels") or {}):
            raise ModelServiceNotFoundError(
                f"No model service named '{name}'; GET /clusters/{cluster_tag}/services lists them."
            )
        view = manifest.model_service(found, self._ready_pods(target, found))
        if not view.ready:
            raise ModelNotReadyError(
                f"Service '{name}' has no ready model server yet (it may still be loading the model); wait until "
                f"GET /clusters/{cluster_tag}/services shows it ready, then call it again.",
            )
        server = self._deployment(target, view.model)
        body = request.openai_body(manifest.settings(server or {}).get("model"))
        if view.type == "external":
            if view.externalUrl is None:
                raise ModelNotReadyError(
                    f"The load balancer of '{name}' has no address yet; wait until "
                    f"GET /clusters/{cluster_tag}/services shows its externalUrl, then call it again.",
                )
            answer = self._writes.load_balancer_post(f"{view.externalUrl}{CHAT_PATH}", body)
        else:
            answer = self._writes.proxy_post(
                target.cluster, target.region, target.namespace, name, view.port, CHAT_PATH, body
            )
        return _completion(name, answer)

    # --- helpers -----------------------------------------------------------------------------

    def _deployment(self, target: ServingTarget, name: str) -> dict[str, Any] | None:
        return self._objects.get(target.cluster, target.region, DEPLOYMENT_API, "Deployment", name, target.namespace)

    def _require(self, cluster_tag: str, name: str) -> tuple[ServingTarget, dict[str, Any]]:
        """The server's target (in its namespace: the claim's or a team's) and its Deployment."""
        found = find_server(self._reads, resolve(self._clusters, self._eks, cluster_tag), name)
        if found is None:
            raise DeploymentNotFoundError(
                f"No model server named '{name}'; GET /clusters/{cluster_tag}/deployments lists them."
            )
        return found

    def _pods(self, target: ServingTarget, labels: dict[str, str | None]) -> list[dict[str, Any]]:
        return self._reads.select(target.cluster, target.region, "v1", "Pod", target.namespace, labels, 100, None).items

    def _ready_pods(self, target: ServingTarget, service: dict[str, Any]) -> int:
        selector = (service.get("spec") or {}).get("selector") or {}
        if not selector:
            return 0
        return sum(manifest.pod_ready(pod) for pod in self._pods(target, dict(selector)))


def _completion(service: str, answer: HttpAnswer) -> ChatCompletion:
    try:
        if answer.status == 200:
            return ChatCompletion.model_validate_json(answer.body)
    except ValidationError:
        pass
    raise ModelServerError(
        f"Model service '{service}' did not answer with an OpenAI chat completion ({answer.status}: "
        f"{answer.body[:300]}); check that its server serves {CHAT_PATH}.",
        {"status": answer.status},
    )


def _action(action: Literal["create", "delete"], obj: dict[str, Any]) -> PlannedAction:
    metadata = obj["metadata"]
    return PlannedAction(action=action, resource=obj["kind"], name=f"{metadata['namespace']}/{metadata['name']}")


def _ours(obj: dict[str, Any], target: ServingTarget) -> bool:
    return workload_namespace(obj["metadata"].get("namespace"), target.namespace)


def _name_in_use(name: str, namespace: str) -> DeploymentNameInUseError:
    return DeploymentNameInUseError(
        f"A model server or Service named '{name}' already exists in namespace {namespace}; choose another name, or "
        "delete that one first."
    )
