"""Cluster lifecycle as the callers see it: validate, plan, start and finish operations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controlplane.config import DependencyPins
from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.dependencies import s3_csi_role_name
from controlplane.core.naming import (
    CLUSTER_TAG_KEY,
    eks_cluster_name,
    eks_cluster_role_name,
    hyperpod_cluster_name,
    hyperpod_cluster_of,
    hyperpod_execution_role_name,
    resource_name,
)
from controlplane.core.network import plan_network, subnet_key
from controlplane.core.operations import OperationService
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, KubernetesNode
from controlplane.core.ports.persistence import Clock, ClusterRegistry
from controlplane.core.storage import data_bucket_name
from controlplane.models.clusters import (
    DEFAULT_KUBERNETES_VERSION,
    ClusterRecord,
    ClusterStatus,
    CreateEksClusterRequest,
    ImportClusterRequest,
    NetworkPlan,
    Plan,
    PlannedAction,
    StageName,
)
from controlplane.models.errors import (
    ClusterExistsError,
    ClusterNotFoundError,
    ClusterNotReadyError,
    ForeignResourceError,
    InvalidRequestError,
    UnknownRegionError,
)
from controlplane.models.features import FeatureChange, FeatureChanges
from controlplane.models.hyperpod import CreateHyperPodRequest, HyperPodPlan
from controlplane.models.instance_types import ec2_type, instance_type
from controlplane.models.operations import Operation, OperationKind, OperationStatus
from controlplane.models.pipeline import CreateClusterRequest
from controlplane.models.status import (
    GPU_RESOURCE,
    GROUP_LABEL,
    HEALTH_LABEL,
    INSTANCE_TYPE_LABEL,
    ZONE_LABEL,
    ClusterStatusView,
    NodeStatus,
)
from controlplane.models.storage import ConfigureStorageRequest, FsxPlan, StoragePlan
from controlplane.models.workflow import WorkflowInput

PERSISTENT_2_DEFAULT_THROUGHPUT = 125
# The pipeline stage a successful operation of each kind completes.
STAGE_OF_KIND = {
    OperationKind.CREATE_EKS_CLUSTER: StageName.EKS,
    OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES: StageName.DEPENDENCIES,
    OperationKind.CREATE_HYPERPOD_CLUSTER: StageName.HYPERPOD,
    OperationKind.CONFIGURE_STORAGE: StageName.STORAGE,
}


class ClusterService:
    def __init__(
        self,
        registry: ClusterRegistry,
        account: AccountGateway,
        operations: OperationService,
        confirmations: Confirmations,
        clock: Clock,
        eks: Callable[[str], EksGateway],
        hyperpod: Callable[[str], HyperPodGateway],
        kubernetes: KubernetesGateway,
    ) -> None:
        self._eks = eks
        self._hyperpod = hyperpod
        self._kubernetes = kubernetes
        self._registry = registry
        self._account = account
        self._operations = operations
        self._confirmations = confirmations
        self._clock = clock

    # --- reads -------------------------------------------------------------------------------

    def list(self) -> list[ClusterRecord]:
        return sorted(self._registry.list(), key=lambda record: record.clusterTag)

    def live_eks(self, record: ClusterRecord) -> dict[str, str | None]:
        """The EKS control plane as EKS reports it now (empty while it does not exist)."""
        cluster = self._eks(record.region).find_cluster(record.eksClusterName)
        if cluster is None:
            return {}
        return {
            "name": cluster.name,
            "arn": cluster.arn,
            "status": cluster.status,
            "version": cluster.version,
            "endpoint": cluster.endpoint,
            "authenticationMode": cluster.authentication_mode,
        }

    def status(self, cluster_tag: str) -> ClusterStatusView:
        """Stage 6: nodes Ready and schedulable, GPU totals, and what is still missing before work can run."""
        record = self.get(cluster_tag)
        eks = self._eks(record.region).find_cluster(record.eksClusterName)
        hyperpod_cluster = self._hyperpod(record.region).find_cluster(_hyperpod_name(record))
        nodes = (
            [_node_status(node) for node in self._kubernetes.nodes(eks, record.region)]
            if eks is not None and eks.status == "ACTIVE"
            else []
        )
        missing = [f"stage '{stage.value}'" for stage in StageName if stage.value not in record.stagesDone]
        if hyperpod_cluster is not None and hyperpod_cluster.status != "InService":
            missing.append(f"HyperPod cluster InService (now {hyperpod_cluster.status})")
        not_ready = [node.name for node in nodes if not (node.ready and node.schedulable)]
        if not_ready:
            missing.append(f"nodes Ready and schedulable: {', '.join(not_ready)}")
        if StageName.HYPERPOD.value in record.stagesDone and not nodes:
            missing.append("at least one node")
        return ClusterStatusView(
            clusterTag=cluster_tag,
            ready=not missing,
            stagesDone=record.stagesDone,
            missing=missing,
            eksStatus=eks.status if eks else None,
            hyperPodStatus=hyperpod_cluster.status if hyperpod_cluster else None,
            nodes=nodes,
            nodesReady=sum(1 for node in nodes if node.ready and node.schedulable),
            gpusTotal=sum(node.gpus for node in nodes),
            gpusAllocatable=sum(node.allocatableGpus for node in nodes if node.ready and node.schedulable),
        )

    def get(self, cluster_tag: str) -> ClusterRecord:
        record = self._registry.find(cluster_tag)
        if record is None:
            raise ClusterNotFoundError(
                f"Cluster '{cluster_tag}' is not registered; GET /clusters lists the clusters this "
                "control plane manages.",
            )
        return record

    # --- stage 1: create ---------------------------------------------------------------------

    def plan_create_eks(self, request: CreateEksClusterRequest) -> tuple[NetworkPlan, Plan]:
        """Validate against live state and say what stage 1 would create; no side effect."""
        if request.region not in self._account.known_regions():
            raise UnknownRegionError(
                f"Unknown or unsupported region '{request.region}'. Use an AWS Region code where EKS "
                "is offered, such as us-west-2.",
                {"region": request.region},
            )
        if self._registry.find(request.clusterTag) is not None:
            raise ClusterExistsError(
                f"Cluster '{request.clusterTag}' already exists; pick another clusterTag or delete it first.",
                {"clusterTag": request.clusterTag},
            )
        network = plan_network(
            self._account.vpc_cidrs(request.region),
            request.vpcCidr,
            self._account.availability_zones(request.region),
        )
        tag = request.clusterTag
        actions = [
            PlannedAction(
                action="create",
                resource="AWS::EC2::VPC",
                name=resource_name(tag, "vpc"),
                detail=f"{network.vpcCidr} ({network.cidrSource})",
            ),
            *[
                PlannedAction(
                    action="create",
                    resource="AWS::EC2::Subnet",
                    name=resource_name(tag, subnet_key(s)),
                    detail=f"{s.cidr} in {s.availabilityZone}",
                )
                for s in network.subnets
            ],
            PlannedAction(action="create", resource="AWS::EC2::InternetGateway", name=resource_name(tag, "igw")),
            PlannedAction(action="create", resource="AWS::EC2::NatGateway", name=resource_name(tag, "nat")),
            PlannedAction(action="create", resource="AWS::EC2::RouteTable", name=resource_name(tag, "public-rt")),
            PlannedAction(action="create", resource="AWS::EC2::RouteTable", name=resource_name(tag, "private-rt")),
            PlannedAction(action="create", resource="AWS::EC2::VPCEndpoint", name=resource_name(tag, "s3-endpoint")),
            PlannedAction(action="create", resource="AWS::EC2::SecurityGroup", name=resource_name(tag, "cluster-sg")),
            PlannedAction(action="create", resource="AWS::IAM::Role", name=eks_cluster_role_name(tag)),
            PlannedAction(
                action="create",
                resource="AWS::EKS::Cluster",
                name=eks_cluster_name(tag),
                detail=f"Kubernetes {request.kubernetesVersion}, authenticationMode API_AND_CONFIG_MAP",
            ),
            PlannedAction(
                action="create",
                resource="AWS::EKS::AccessEntry",
                name="control-plane role",
                detail="AmazonEKSClusterAdminPolicy, cluster scope",
            ),
        ]
        return network, Plan(actions=actions)

    def create_eks(self, request: CreateEksClusterRequest, actor: Actor) -> Operation:
        actor.require(Role.ADMIN, "create an EKS cluster")
        network, _ = self.plan_create_eks(request)
        return self._register_and_start(request, OperationKind.CREATE_EKS_CLUSTER, actor, network=network)

    # --- all stages in one operation ----------------------------------------------------------

    def plan_pipeline(self, request: CreateClusterRequest) -> tuple[WorkflowInput, Plan]:
        """Validate every stage's input up front (nothing is created) and list what the pipeline would do."""
        eks_request = request.eks_request()
        network, eks_plan = self.plan_create_eks(eks_request)
        hyperpod = self.resolve_group(request.region, request.hyperpod)
        storage = self._storage_plan(request.clusterTag, request.region, self._account.account_id(), request.storage)
        planned = WorkflowInput(
            operationId="planned",
            kind=OperationKind.CREATE_CLUSTER,
            clusterTag=request.clusterTag,
            region=request.region,
            eksClusterName=eks_cluster_name(request.clusterTag),
            kubernetesVersion=eks_request.kubernetesVersion,
            network=network,
            hyperpod=hyperpod,
            storage=storage,
        )
        actions = [
            *eks_plan.actions,
            PlannedAction(action="create", resource="EKS add-ons and HyperPod dependencies", name="stage 3"),
            *_hyperpod_actions(request.clusterTag, hyperpod, hyperpod_cluster_name(request.clusterTag)),
            *_storage_actions(request.clusterTag, storage),
        ]
        return planned, Plan(actions=actions)

    def create_cluster(self, request: CreateClusterRequest, actor: Actor) -> Operation:
        actor.require(Role.ADMIN, "create a cluster")
        planned, _ = self.plan_pipeline(request)
        return self._register_and_start(
            request.eks_request(),
            OperationKind.CREATE_CLUSTER,
            actor,
            network=planned.network,
            hyperpod=planned.hyperpod,
            storage=planned.storage,
        )

    def record_stage(self, operation_id: str, stage: str) -> None:
        """A pipeline stage finished: the registry shows it done even if a later stage fails."""
        operation = self._operations.get(operation_id)
        record = self.get(operation.target)
        update: dict[str, object] = {"updatedAt": self._clock.now()}
        if stage not in record.stagesDone:
            update["stagesDone"] = [*record.stagesDone, stage]
        if stage == StageName.EKS.value:
            update["status"] = ClusterStatus.ACTIVE
        if stage == StageName.STORAGE.value:
            update.update(_storage_facts(StoragePlan.model_validate(operation.input["storage"])))
        self._registry.save(record.model_copy(update=update))

    def _register_and_start(
        self,
        request: CreateEksClusterRequest,
        kind: OperationKind,
        actor: Actor,
        network: NetworkPlan | None,
        hyperpod: HyperPodPlan | None = None,
        storage: StoragePlan | None = None,
    ) -> Operation:
        """Register the cluster (the tag is taken from here on) and start the workflow that builds it."""
        if network is None:
            raise InvalidRequestError("No network plan.")
        now = self._clock.now()
        name = eks_cluster_name(request.clusterTag)
        account = self._account.account_id()
        self._registry.create(
            ClusterRecord(
                clusterTag=request.clusterTag,
                region=request.region,
                status=ClusterStatus.CREATING,
                eksClusterName=name,
                kubernetesVersion=request.kubernetesVersion,
                vpcCidr=network.vpcCidr,
                createdAt=now,
                updatedAt=now,
                createdBy=actor.principal,
                accountId=account,
            )
        )

        def payload(operation_id: str) -> dict[str, object]:
            return WorkflowInput(
                operationId=operation_id,
                kind=kind,
                clusterTag=request.clusterTag,
                region=request.region,
                accountId=account,
                eksClusterName=name,
                kubernetesVersion=request.kubernetesVersion,
                network=network,
                hyperpod=hyperpod,
                storage=storage,
                features=_storage_features(storage) if storage else None,
            ).model_dump(mode="json", exclude_none=True)

        try:
            return self._operations.start(kind, request.clusterTag, actor, payload)
        except Exception:
            self._registry.delete(request.clusterTag)
            raise

    # --- import ---------------------------------------------------------------------------------

    def plan_import(self, request: ImportClusterRequest) -> tuple[EksCluster, Plan]:
        """Check that the cluster can be adopted (nothing is changed) and say what import would do."""
        region = request.region
        if region not in self._account.known_regions():
            raise UnknownRegionError(
                f"Unknown or unsupported region '{region}'. Use the AWS Region code of the existing cluster.",
                {"region": region},
            )
        if self._registry.find(request.clusterTag) is not None:
            raise ClusterExistsError(
                f"Cluster '{request.clusterTag}' already exists; pick another clusterTag.",
                {"clusterTag": request.clusterTag},
            )
        cluster = self._eks(region).find_cluster(request.eksClusterName)
        if cluster is None:
            raise InvalidRequestError(
                f"No EKS cluster named '{request.eksClusterName}' in {region}; check the name and Region "
                "(aws eks list-clusters lists them).",
                {"eksClusterName": request.eksClusterName},
            )
        if cluster.status != "ACTIVE":
            raise ClusterNotReadyError(
                f"EKS cluster {cluster.name} is {cluster.status}; import it once it is ACTIVE.",
                {"status": cluster.status},
            )
        if cluster.authentication_mode not in ("API", "API_AND_CONFIG_MAP"):
            raise InvalidRequestError(
                f"EKS cluster {cluster.name} uses authenticationMode {cluster.authentication_mode or 'CONFIG_MAP'}, "
                "which has no access entries (HyperPod needs them too). Switch it to API_AND_CONFIG_MAP "
                "(EKS UpdateClusterConfig accessConfig.authenticationMode), then import again.",
                {"authenticationMode": cluster.authentication_mode},
            )
        owner = cluster.tags.get(CLUSTER_TAG_KEY) or next(
            (r.clusterTag for r in self._registry.list() if (r.region, r.eksClusterName) == (region, cluster.name)),
            None,
        )
        if owner is not None:
            raise ClusterExistsError(
                f"EKS cluster {cluster.name} is already registered as '{owner}'; use that clusterTag.",
                {"clusterTag": owner},
            )
        actions = [
            PlannedAction(
                action="keep",
                resource="AWS::EKS::Cluster",
                name=cluster.name,
                detail=f"adopted, tagged {CLUSTER_TAG_KEY}={request.clusterTag}; never deleted by the control plane",
            ),
            PlannedAction(action="keep", resource="AWS::EC2::VPC", name=cluster.vpc_id or "the cluster's VPC"),
        ]
        if request.hyperPodClusterName:
            hyperpod = self._hyperpod(region).find_cluster(request.hyperPodClusterName)
            if hyperpod is None:
                raise InvalidRequestError(
                    f"No HyperPod cluster named '{request.hyperPodClusterName}' in {region}; omit "
                    "hyperPodClusterName to import the EKS cluster alone.",
                    {"hyperPodClusterName": request.hyperPodClusterName},
                )
            if hyperpod.eks_cluster_arn != cluster.arn:
                raise InvalidRequestError(
                    f"HyperPod cluster {hyperpod.name} is orchestrated by "
                    f"{hyperpod.eks_cluster_arn or 'no EKS cluster'}, not by {cluster.arn}; name the HyperPod "
                    "cluster that runs on this EKS cluster.",
                    {"orchestrator": hyperpod.eks_cluster_arn},
                )
            if hyperpod.status != "InService":
                raise ClusterNotReadyError(
                    f"HyperPod cluster {hyperpod.name} is {hyperpod.status}; import once it is InService.",
                    {"status": hyperpod.status},
                )
            actions.append(PlannedAction(action="keep", resource="AWS::SageMaker::Cluster", name=hyperpod.name))
        actions.append(
            PlannedAction(
                action="create",
                resource="AWS::EKS::AccessEntry",
                name="control-plane role",
                detail="only if missing; AmazonEKSClusterAdminPolicy, cluster scope; removed on delete",
            )
        )
        return cluster, Plan(actions=actions)

    def import_cluster(self, request: ImportClusterRequest, actor: Actor) -> Operation:
        actor.require(Role.ADMIN, "import a cluster")
        cluster, _ = self.plan_import(request)
        now = self._clock.now()
        record = ClusterRecord(
            clusterTag=request.clusterTag,
            region=request.region,
            status=ClusterStatus.IMPORTING,
            eksClusterName=cluster.name,
            kubernetesVersion=cluster.version or DEFAULT_KUBERNETES_VERSION,
            createdAt=now,
            updatedAt=now,
            createdBy=actor.principal,
            accountId=self._account.account_id(),
            imported=True,
            hyperPodClusterName=request.hyperPodClusterName,
        )
        self._registry.create(record)
        try:
            return self.start_workflow(record, OperationKind.IMPORT_CLUSTER, actor)
        except Exception:
            self._registry.delete(request.clusterTag)
            raise

    # --- stage 3: dependencies ----------------------------------------------------------------

    def plan_dependencies(self, cluster_tag: str, pins: DependencyPins) -> Plan:
        record = self.ready_for(cluster_tag, StageName.DEPENDENCIES, needs=StageName.EKS)
        actions = [
            PlannedAction(action="create", resource="AWS::IAM::OIDCProvider", name=f"{record.eksClusterName} issuer"),
            PlannedAction(
                action="create",
                resource="AWS::IAM::Role",
                name=s3_csi_role_name(cluster_tag),
                detail="IRSA for kube-system/s3-csi-driver-sa; objects in instantstart-<tag>-* buckets",
            ),
            *[
                PlannedAction(action="create", resource="AWS::EKS::Addon", name=addon, detail=version)
                for addon, version in pins.addons.items()
            ],
            *[
                PlannedAction(action="create", resource="Kubernetes manifest", name=name, detail=pin.image)
                for name, pin in pins.manifests.items()
            ],
        ]
        return Plan(actions=actions)

    def configure_dependencies(self, cluster_tag: str, actor: Actor) -> Operation:
        actor.require(Role.ADMIN, "configure cluster dependencies")
        record = self.ready_for(cluster_tag, StageName.DEPENDENCIES, needs=StageName.EKS)

        return self.start_workflow(record, OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES, actor)

    # --- stage 4: HyperPod ----------------------------------------------------------------------

    def plan_hyperpod(self, cluster_tag: str, request: CreateHyperPodRequest) -> tuple[HyperPodPlan, Plan]:
        """Validate the first instance group against live facts and say what stage 4 would create."""
        record = self.ready_for(cluster_tag, StageName.HYPERPOD, needs=StageName.DEPENDENCIES)
        if StageName.HYPERPOD.value in record.stagesDone:
            raise ClusterExistsError(
                f"Cluster '{cluster_tag}' already has its HyperPod cluster; add capacity with an instance "
                "group instead.",
            )
        if record.network is not None and record.network.natGatewayId is None:
            raise InvalidRequestError(
                f"VPC {record.network.vpcId} of the imported cluster has no NAT gateway route from the EKS subnets; "
                "HyperPod nodes in private subnets need egress. Add a NAT gateway route there first.",
                {"vpcId": record.network.vpcId},
            )
        resolved = self.resolve_group(record.region, request)
        return resolved, Plan(actions=_hyperpod_actions(cluster_tag, resolved, _hyperpod_name(record)))

    def resolve_group(self, region: str, request: CreateHyperPodRequest) -> HyperPodPlan:
        """The first group with its AZ (a training plan's takes precedence) and defaults, checked against offerings."""
        zone = request.availabilityZone
        if request.trainingPlanArn:
            plan = self._account.training_plan(region, request.trainingPlanArn)
            if plan is None:
                raise InvalidRequestError(
                    f"Unknown training plan {request.trainingPlanArn} in {region}; list the Region's training "
                    "plans and pass one of their ARNs.",
                    {"trainingPlanArn": request.trainingPlanArn},
                )
            if plan.instance_type and plan.instance_type != request.instanceType:
                raise InvalidRequestError(
                    f"Training plan {plan.name} reserves {plan.instance_type}, not {request.instanceType}.",
                    {"planInstanceType": plan.instance_type},
                )
            if request.instanceCount > plan.instance_count:
                raise InvalidRequestError(
                    f"Training plan {plan.name} reserves {plan.instance_count} instances; ask for at most that many.",
                )
            if zone and plan.availability_zone and zone != plan.availability_zone:
                raise InvalidRequestError(
                    f"Training plan {plan.name} is in {plan.availability_zone}; its AZ takes precedence. Omit "
                    f"availabilityZone or pass {plan.availability_zone}.",
                )
            zone = plan.availability_zone or zone
        zones = [z.name for z in self._account.availability_zones(region)]
        if zone is None:
            raise InvalidRequestError("availabilityZone is required: the training plan does not name an AZ.")
        if zone not in zones:
            raise InvalidRequestError(
                f"Availability Zone {zone} is not in {region}; choose one of: {', '.join(zones)}.",
                {"availabilityZones": zones},
            )
        offered = self._account.offerings(region, [ec2_type(request.instanceType)])[ec2_type(request.instanceType)]
        if zone not in offered:
            raise InvalidRequestError(
                f"{request.instanceType} is not offered in {zone}"
                + (f"; it is offered in: {', '.join(offered)}." if offered else f" nor anywhere in {region}."),
                {"offeredIn": offered},
            )
        known = instance_type(request.instanceType)
        supports_checks = known is not None and known.deep_health_checks
        if request.deepHealthChecks and not supports_checks:
            raise InvalidRequestError(
                f"Deep health checks test NVIDIA GPUs and EFA; {request.instanceType} does not support them. "
                "Omit deepHealthChecks or set it to false.",
            )
        efa_cards = known.efa_interfaces if known else 0
        if request.networkInterface == "efa-only" and (known is None or not known.efa_only_capable):
            raise InvalidRequestError(
                f"networkInterface efa-only needs an instance type with more than one EFA card; {request.instanceType} "
                f"has {efa_cards}. The interface type is immutable once the group exists, so choose now: a type with "
                f"several EFA cards (such as ml.p5.48xlarge), or {'efa' if efa_cards else 'no networkInterface'}.",
                {"efaInterfaces": efa_cards},
            )
        if request.networkInterface == "efa" and known is not None and efa_cards == 0:
            raise InvalidRequestError(
                f"{request.instanceType} has no EFA interface; omit networkInterface.", {"efaInterfaces": 0}
            )
        resolved = HyperPodPlan(
            availabilityZone=zone,
            instanceType=request.instanceType,
            instanceCount=request.instanceCount,
            capacityType=request.capacityType,
            trainingPlanArn=request.trainingPlanArn,
            ebsVolumeSizeGb=request.ebsVolumeSizeGb,
            instanceGroupName=request.instanceGroupName,
            # Custom taints and deep health checks exclude each other: taints turn the default off.
            deepHealthChecks=supports_checks and not request.taints
            if request.deepHealthChecks is None
            else request.deepHealthChecks,
            dedicatedSubnet=request.dedicatedSubnet,
            threadsPerCore=known.threads_per_core if known else 1,
            minInstanceCount=request.minInstanceCount,
            networkInterface=request.networkInterface,
            labels=request.labels,
            taints=request.taints,
        )
        return resolved

    def create_hyperpod(self, cluster_tag: str, request: CreateHyperPodRequest, actor: Actor) -> Operation:
        actor.require(Role.ADMIN, "create a HyperPod cluster")
        resolved, _ = self.plan_hyperpod(cluster_tag, request)
        record = self.get(cluster_tag)

        return self.start_workflow(record, OperationKind.CREATE_HYPERPOD_CLUSTER, actor, hyperpod=resolved)

    # --- stage 5: storage ----------------------------------------------------------------------

    def plan_storage(self, cluster_tag: str, request: ConfigureStorageRequest) -> tuple[StoragePlan, Plan]:
        record = self.ready_for(cluster_tag, StageName.STORAGE, needs=StageName.DEPENDENCIES)
        if StageName.DEPENDENCIES.value in record.adopted:
            raise ForeignResourceError(
                f"Cluster '{cluster_tag}' was imported with its own Mountpoint for S3 CSI driver, whose IAM role is "
                "not the control plane's to change. Grant that role access to your bucket and create the "
                "PersistentVolumeClaim yourself, or let InstantStart manage the cluster's dependencies in a cluster "
                "it creates.",
                {"adopted": record.adopted},
            )
        if request.fsx is not None and StageName.HYPERPOD.value not in record.stagesDone:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has no HyperPod cluster yet; the FSx file system goes into the compute "
                "subnet of its nodes. Finish stage 'hyperpod' first, or omit fsx.",
                {"needs": StageName.HYPERPOD.value, "stagesDone": record.stagesDone},
            )
        plan = self._storage_plan(cluster_tag, record.region, record.accountId or self._account.account_id(), request)
        return plan, Plan(actions=_storage_actions(cluster_tag, plan))

    @staticmethod
    def _storage_plan(cluster_tag: str, region: str, account: str, request: ConfigureStorageRequest) -> StoragePlan:
        fsx = request.fsx
        return StoragePlan(
            bucketName=request.bucketName or data_bucket_name(cluster_tag, account, region),
            bucketSource="caller" if request.bucketName else "created",
            claimName=request.claimName,
            namespace=request.namespace,
            fsx=None
            if fsx is None
            else FsxPlan(
                storageCapacityGiB=fsx.storageCapacityGiB,
                deploymentType=fsx.deploymentType,
                perUnitStorageThroughput=fsx.perUnitStorageThroughput
                or (PERSISTENT_2_DEFAULT_THROUGHPUT if fsx.deploymentType == "PERSISTENT_2" else None),
                claimName=fsx.claimName,
            ),
        )

    def configure_storage(self, cluster_tag: str, request: ConfigureStorageRequest, actor: Actor) -> Operation:
        actor.require(Role.OPERATOR, "configure storage")
        plan, _ = self.plan_storage(cluster_tag, request)
        record = self.get(cluster_tag)

        if plan.fsx is not None:
            actor.require(Role.ADMIN, "create an FSx file system (it enables the fsxCsiDriver feature)")
        return self.start_workflow(
            record, OperationKind.CONFIGURE_STORAGE, actor, storage=plan, features=_storage_features(plan)
        )

    def start_workflow(
        self,
        record: ClusterRecord,
        kind: OperationKind,
        actor: Actor,
        **plans: Any,
    ) -> Operation:
        """Start a workflow on a registered cluster; its input carries the record's facts and the plans it acts on
        (WorkflowInput fields such as hyperpod, storage, instanceGroup)."""
        account = record.accountId or self._account.account_id()

        def payload(operation_id: str) -> dict[str, object]:
            return WorkflowInput(
                operationId=operation_id,
                kind=kind,
                clusterTag=record.clusterTag,
                region=record.region,
                accountId=account,
                eksClusterName=record.eksClusterName,
                hyperPodClusterName=_hyperpod_name(record),
                imported=record.imported,
                importedNetwork=record.network,
                **plans,
            ).model_dump(mode="json", exclude_none=True)

        return self._operations.start(kind, record.clusterTag, actor, payload)

    def ready_for(self, cluster_tag: str, stage: StageName, needs: StageName) -> ClusterRecord:
        record = self.get(cluster_tag)
        if needs.value not in record.stagesDone or record.status != ClusterStatus.ACTIVE:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has not finished the '{needs.value}' stage that '{stage.value}' builds on "
                f"(status {record.status}, done: {', '.join(record.stagesDone) or 'nothing'}). "
                "Finish or resume that stage first; GET /clusters/{clusterTag} shows where it stands.",
                {"needs": needs.value, "stagesDone": record.stagesDone},
            )
        return record

    # --- delete (plan, then confirm) ---------------------------------------------------------

    def plan_delete(self, cluster_tag: str, actor: Actor) -> Plan:
        actor.require(Role.ADMIN, "delete a cluster")
        record = self.get(cluster_tag)
        token, expires_at = self._confirmations.issue(actor, "delete-cluster", cluster_tag)
        actions = _imported_delete_actions(record) if record.imported else _delete_actions(record)
        return Plan(
            dryRun=True,
            actions=actions,
            confirmationToken=token,
            expiresAt=expires_at,
            message=(
                f"Deleting '{cluster_tag}' destroys the resources listed. Ask the person to confirm, then "
                "repeat the request with confirmationToken."
            ),
        )

    def delete(self, cluster_tag: str, token: str, actor: Actor) -> Operation:
        actor.require(Role.ADMIN, "delete a cluster")
        record = self.get(cluster_tag)
        self._confirmations.redeem(
            token, actor, "delete-cluster", cluster_tag, f"Call DELETE /clusters/{cluster_tag} without a token"
        )
        operation = self.start_workflow(record, OperationKind.DELETE_EKS_CLUSTER, actor)
        self._registry.save(
            record.model_copy(
                update={
                    "status": ClusterStatus.DELETING,
                    "activeOperationId": operation.operationId,
                    "updatedAt": self._clock.now(),
                }
            )
        )
        return operation

    # --- workflow outcomes -------------------------------------------------------------------

    def record_outcome(self, operation: Operation) -> None:
        """Bring the registry in line with a finished operation and release the cluster's lock."""
        now = self._clock.now()
        record = self._registry.find(operation.target)
        if record is None:
            return
        succeeded = operation.status == OperationStatus.SUCCEEDED
        if operation.kind == OperationKind.DELETE_EKS_CLUSTER and succeeded:
            self._registry.delete(operation.target)
            return
        update: dict[str, object] = {"lastOperationId": operation.operationId, "updatedAt": now}
        stage = STAGE_OF_KIND.get(operation.kind)
        if operation.kind == OperationKind.IMPORT_CLUSTER:
            update["status"] = ClusterStatus.ACTIVE if succeeded else ClusterStatus.FAILED
        elif operation.kind in (OperationKind.CREATE_EKS_CLUSTER, OperationKind.CREATE_CLUSTER):
            eks_done = succeeded or StageName.EKS.value in record.stagesDone
            update["status"] = ClusterStatus.ACTIVE if eks_done else ClusterStatus.FAILED
        elif operation.kind == OperationKind.DELETE_EKS_CLUSTER:
            update["status"] = ClusterStatus.FAILED
        if succeeded and stage is not None and stage.value not in record.stagesDone:
            update["stagesDone"] = [*record.stagesDone, stage.value]
        if succeeded and operation.kind == OperationKind.CONFIGURE_STORAGE:
            update.update(_storage_facts(StoragePlan.model_validate(operation.input["storage"])))
        self._registry.save(record.model_copy(update=update))
        self._registry.release(operation.target, operation.operationId, now)


def _node_status(node: KubernetesNode) -> NodeStatus:
    return NodeStatus(
        name=node.name,
        instanceGroup=node.labels.get(GROUP_LABEL),
        instanceType=node.labels.get(INSTANCE_TYPE_LABEL),
        availabilityZone=node.labels.get(ZONE_LABEL),
        ready=node.ready,
        schedulable=node.schedulable,
        health=node.labels.get(HEALTH_LABEL),
        gpus=int(node.capacity.get(GPU_RESOURCE, "0")),
        allocatableGpus=int(node.allocatable.get(GPU_RESOURCE, "0")),
    )


def _hyperpod_name(record: ClusterRecord) -> str:
    return hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)


def _delete_actions(record: ClusterRecord) -> list[PlannedAction]:
    tag = record.clusterTag
    hyperpod = [
        PlannedAction(action="delete", resource="AWS::SageMaker::Cluster", name=_hyperpod_name(record))
        for done in record.stagesDone
        if done == StageName.HYPERPOD.value
    ]
    return [
        *hyperpod,
        PlannedAction(action="delete", resource="AWS::EKS::Cluster", name=record.eksClusterName),
        PlannedAction(action="delete", resource="AWS::IAM::Role", name=eks_cluster_role_name(tag)),
        PlannedAction(
            action="delete",
            resource="AWS::EC2::VPC",
            name=resource_name(tag, "vpc"),
            detail="with its subnets, gateways, route tables, endpoint and security group",
        ),
    ]


def _imported_delete_actions(record: ClusterRecord) -> list[PlannedAction]:
    """Keep what was adopted; remove only what the pipeline added to it."""
    adopted = set(record.adopted)
    hyperpod = _hyperpod_name(record)
    vpc = record.network.vpcId if record.network else "the cluster's VPC"
    actions = [
        PlannedAction(action="keep", resource="AWS::EKS::Cluster", name=record.eksClusterName, detail="imported"),
        PlannedAction(action="keep", resource="AWS::EC2::VPC", name=vpc, detail="imported, with its own subnets"),
    ]
    if StageName.HYPERPOD.value in adopted:
        actions.append(PlannedAction(action="keep", resource="AWS::SageMaker::Cluster", name=hyperpod))
    elif StageName.HYPERPOD.value in record.stagesDone:
        actions.append(PlannedAction(action="delete", resource="AWS::SageMaker::Cluster", name=hyperpod))
    actions += [
        PlannedAction(
            action="delete",
            resource="AWS::EC2::Subnet",
            name=resource_name(record.clusterTag, "compute-*"),
            detail="compute subnets and their route table, created by stage 4",
        ),
        PlannedAction(
            action="delete",
            resource="AWS::IAM::Role",
            name=f"instantstart-{record.clusterTag}-*",
            detail="roles and OIDC provider the pipeline created",
        ),
        PlannedAction(
            action="delete",
            resource="EKS add-ons, pod identity and Kubernetes objects",
            name="added by stages 3-5",
            detail="only those the pipeline installed: "
            + ("adopted stages are kept: " + ", ".join(sorted(adopted)) if adopted else "nothing was adopted"),
        ),
        PlannedAction(
            action="delete",
            resource="AWS::EKS::AccessEntry",
            name="control-plane role",
            detail="if import created it",
        ),
    ]
    return actions


def _hyperpod_actions(cluster_tag: str, resolved: HyperPodPlan, name: str) -> list[PlannedAction]:
    zone = resolved.availabilityZone
    return [
        PlannedAction(action="create", resource="AWS::IAM::Role", name=hyperpod_execution_role_name(cluster_tag)),
        PlannedAction(action="create", resource="AWS::S3::Bucket", name="lifecycle scripts (sagemaker-is-…)"),
        PlannedAction(action="create", resource="AWS::EC2::Subnet", name=f"compute subnet in {zone}"),
        PlannedAction(
            action="create",
            resource="AWS::SageMaker::Cluster",
            name=name,
            detail=f"{resolved.instanceCount} x {resolved.instanceType} ({resolved.capacityType}) in {zone}, "
            f"NodeRecovery Automatic, deep health checks {'on' if resolved.deepHealthChecks else 'off'}",
        ),
        PlannedAction(
            action="create",
            resource="AWS::EKS::PodIdentityAssociation",
            name="aws-hyperpod/hp-training-operator-controller-manager",
        ),
    ]


def _storage_features(plan: StoragePlan) -> FeatureChanges | None:
    """FSx storage enables the fsxCsiDriver feature (the add-on and its IRSA role) through the feature's own step."""
    if plan.fsx is None:
        return None
    return FeatureChanges(fsxCsiDriver=FeatureChange(change="enable"))


def _storage_facts(plan: StoragePlan) -> dict[str, object]:
    """What the registry records of a finished storage stage."""
    return {
        "storageBucket": plan.bucketName,
        "storageClaim": f"{plan.namespace}/{plan.claimName}",
        "fsxClaim": f"{plan.namespace}/{plan.fsx.claimName}" if plan.fsx else None,
    }


def _storage_actions(cluster_tag: str, plan: StoragePlan) -> list[PlannedAction]:
    return [
        PlannedAction(
            action="keep" if plan.bucketSource == "caller" else "create",
            resource="AWS::S3::Bucket",
            name=plan.bucketName,
            detail="never deleted by the control plane",
        ),
        PlannedAction(
            action="create",
            resource="AWS::IAM::Policy",
            name=f"{s3_csi_role_name(cluster_tag)} access",
            detail=f"objects in {plan.bucketName}",
        ),
        PlannedAction(
            action="create",
            resource="Kubernetes PersistentVolumeClaim",
            name=f"{plan.namespace}/{plan.claimName}",
            detail="mounted at /s3 by workload templates",
        ),
        *_fsx_actions(cluster_tag, plan),
    ]


def _fsx_actions(cluster_tag: str, plan: StoragePlan) -> list[PlannedAction]:
    fsx = plan.fsx
    if fsx is None:
        return []
    throughput = f", {fsx.perUnitStorageThroughput} MB/s/TiB" if fsx.perUnitStorageThroughput else ""
    return [
        PlannedAction(
            action="create",
            resource="AWS::EKS::Addon",
            name="aws-fsx-csi-driver",
            detail=f"fsxCsiDriver feature if not enabled: add-on and IRSA role instantstart-{cluster_tag}-fsx-csi",
        ),
        PlannedAction(
            action="create",
            resource="AWS::FSx::FileSystem",
            name=f"Lustre for {plan.namespace}/{fsx.claimName}",
            detail=f"{fsx.storageCapacityGiB} GiB {fsx.deploymentType}{throughput} in the compute subnet; "
            "deleted with the cluster",
        ),
        PlannedAction(
            action="create",
            resource="Kubernetes PersistentVolumeClaim",
            name=f"{plan.namespace}/{fsx.claimName}",
            detail="static PV for fsx.csi.aws.com",
        ),
    ]
