"""The workflows, each declared once: its blocks in order and the stage each step reports.

State names are the contract with the operation records, the sandbox's faults and the workflow tests: a
Task is named for its step ("Ensure VPC" ⇄ the step "Ensure VPC" declared in `steps/`), a poll loop's Choice
and Wait for what they wait for. The one-request pipeline is composed from the four stage workflows.
"""

from __future__ import annotations

import re

from controlplane.models.features import Feature
from controlplane.models.operations import OperationKind
from controlplane.workflows.spec import Block, Branch, Poll, Stage, Task, Workflow, is_present, string_equals

RECORD_STAGE_COMPLETED = "Record Stage Completed"


def feature_title(feature: Feature) -> str:
    """ "fsxCsiDriver" → "Fsx Csi Driver", the name its steps carry."""
    return " ".join(word.capitalize() for word in re.split(r"(?=[A-Z])", feature.value))


def ensure_step(feature: Feature) -> str:
    """The name of a feature's ensure step (its Task, and its row in the steps table)."""
    return f"Ensure {feature_title(feature)}"


def remove_step(feature: Feature) -> str:
    """The name of a feature's remove step (its Task, and its row in the steps table)."""
    return f"Remove {feature_title(feature)}"


def _ensure_feature(feature: Feature) -> Poll:
    """A feature's level-triggered ensure step, polled until the feature has settled."""
    title = feature_title(feature)
    return Poll(ensure_step(feature), f"Is {title} Ensured", f"Wait For {title}", f"{title} Ensured")


def _remove_feature(feature: Feature) -> Poll:
    title = feature_title(feature)
    return Poll(remove_step(feature), f"Is {title} Removed", f"Wait For {title} Removal", f"{title} Removed")


CREATE_EKS_CLUSTER = Workflow(
    OperationKind.CREATE_EKS_CLUSTER,
    "Stage 1: network and EKS control plane for one cluster. Every step is idempotent; resume reruns it.",
    Stage(
        "network",
        Task("Ensure VPC"),
        Task("Ensure Subnets"),
        Task("Ensure Internet Gateway"),
        Task("Ensure NAT Gateway"),
        Task("Ensure Route Tables"),
        Task("Ensure S3 Endpoint"),
        Task("Ensure Security Group"),
    ),
    Stage("iam", Task("Ensure Cluster Role")),
    Stage(
        "eks-control-plane",
        Task("Create EKS Cluster"),
        Poll("Check EKS Cluster", "Is EKS Cluster Active", "Wait For EKS Cluster"),
    ),
    Stage("cluster-access", Task("Ensure Access Entry")),
    Stage("kubernetes-api", Task("Verify Kubernetes API")),
    Stage("events", Task("Ensure Event Forwarding")),
)

CONFIGURE_CLUSTER_DEPENDENCIES = Workflow(
    OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES,
    "Stage 3: what HyperPod needs inside the EKS cluster (OIDC, add-ons, device plugins, health agent).",
    Stage("oidc", Task("Ensure OIDC Provider")),
    Stage(
        "addons",
        Task("Ensure S3 CSI Driver Role"),
        Task("Ensure Addons"),
        Poll("Check Addons", "Are Addons Active", "Wait For Addons"),
    ),
    Stage("hyperpod-dependencies", Task("Apply HyperPod Dependencies")),
)

CREATE_HYPERPOD_CLUSTER = Workflow(
    OperationKind.CREATE_HYPERPOD_CLUSTER,
    "Stage 4: the HyperPod cluster (EKS orchestrator) with its first instance group.",
    Stage("identity", Task("Ensure Execution Role")),
    Stage("lifecycle-scripts", Task("Ensure Lifecycle Scripts")),
    Stage("network", Task("Ensure Compute Subnet")),
    Stage(
        "hyperpod-cluster",
        Task("Create HyperPod Cluster"),
        Poll("Check HyperPod Cluster", "Is HyperPod Cluster In Service", "Wait For HyperPod Cluster", topic="cluster"),
    ),
    Stage("node-agents", Poll("Check Node Agents", "Are Node Agents Ready", "Wait For Node Agents")),
    # The add-ons stage 3 left waiting for nodes, ACTIVE now that the nodes have joined.
    Stage("addon-health", Poll("Check Addons Healthy", "Are Addons Healthy", "Wait For Healthy Addons")),
    Stage("training-operator-identity", Task("Ensure Training Operator Identity")),
)

CONFIGURE_STORAGE = Workflow(
    OperationKind.CONFIGURE_STORAGE,
    "Stage 5: an S3 bucket mounted through the Mountpoint for S3 CSI driver as a PV/PVC; with fsx, also the "
    "FSx CSI driver (the fsxCsiDriver feature's step), an FSx for Lustre file system and its static PV/PVC.",
    Stage("bucket", Task("Ensure Data Bucket")),
    Stage("access", Task("Grant Bucket Access")),
    Stage("claim", Task("Apply Storage Claim")),
    Stage(
        "fsx",
        Branch(
            "Is FSx Requested",
            is_present("$.storage.fsx"),
            "The FSx steps run only when the request asks for a file system.",
            _ensure_feature(Feature.FSX_CSI_DRIVER),
            Task("Create FSx File System"),
            Poll("Check FSx File System", "Is FSx File System Available", "Wait For FSx File System"),
            Task("Apply FSx Claim"),
        ),
    ),
)


def _record_stage_completed(stage: str) -> Task:
    """Pipeline only: the registry shows a finished stage at once, before the next stage can fail."""
    return Task(RECORD_STAGE_COMPLETED, name=f"{RECORD_STAGE_COMPLETED} {stage.title()}", constants={"stage": stage})


def _pipeline(comment: str, stages: dict[str, Workflow]) -> Workflow:
    """Each stage workflow's blocks as one stage of the pipeline, each followed by its Record Stage Completed."""
    blocks: list[Block] = []
    for name, workflow in stages.items():
        blocks += [Stage(name, *workflow.body), _record_stage_completed(name)]
    return Workflow(OperationKind.CREATE_CLUSTER, comment, *blocks)


CREATE_CLUSTER = _pipeline(
    "All stages in one operation: network and EKS, dependencies, HyperPod, storage. The same steps as the stage "
    "workflows.",
    {
        "eks": CREATE_EKS_CLUSTER,
        "dependencies": CONFIGURE_CLUSTER_DEPENDENCIES,
        "hyperpod": CREATE_HYPERPOD_CLUSTER,
        "storage": CONFIGURE_STORAGE,
    },
)

DELETE_EKS_CLUSTER = Workflow(
    OperationKind.DELETE_EKS_CLUSTER,
    "Delete everything the pipeline created, in reverse order; an imported cluster keeps what was adopted. Absent "
    "resources count as deleted.",
    Stage(
        "hyperpod",
        Task("Delete HyperPod Cluster"),
        Poll("Check HyperPod Cluster Deleted", "Is HyperPod Cluster Gone", "Wait For HyperPod Cluster Deletion"),
        Task("Delete HyperPod Resources"),
    ),
    Stage(
        "storage",
        Task("Delete FSx File Systems"),
        Poll("Check FSx File Systems Deleted", "Are FSx File Systems Gone", "Wait For FSx File System Deletion"),
    ),
    Stage(
        "eks-control-plane",
        Task("Release Imported Cluster"),
        Task("Delete EKS Cluster"),
        Poll("Check EKS Cluster Deleted", "Is EKS Cluster Gone", "Wait For EKS Cluster Deletion"),
    ),
    Stage("iam", Task("Delete Cluster Role"), Task("Delete Dependency Identities"), Task("Delete Feature Identities")),
    Stage(
        "network",
        Poll("Release NAT Gateway", "Is NAT Gateway Released", "Wait For NAT Gateway Deletion"),
        Task("Delete Network"),
    ),
    Stage("events", Task("Remove Event Forwarding")),
)

CHECK_INSTANCE_GROUP = Poll(
    "Check Instance Group", "Is Instance Group In Service", "Wait For Instance Group", topic="cluster"
)

ADD_INSTANCE_GROUP = Workflow(
    OperationKind.ADD_INSTANCE_GROUP,
    "Add an instance group to a running HyperPod cluster and wait until its instances are in service.",
    Stage("network", Task("Ensure Compute Subnet")),
    Stage("instance-group", Task("Add Instance Group"), CHECK_INSTANCE_GROUP),
)

UPDATE_INSTANCE_GROUP = Workflow(
    OperationKind.UPDATE_INSTANCE_GROUP,
    "Change an instance group (explicit diff, every other field resent unchanged) and wait for its counts.",
    Stage("instance-group", Task("Update Instance Group"), CHECK_INSTANCE_GROUP),
)

DELETE_INSTANCE_GROUP = Workflow(
    OperationKind.DELETE_INSTANCE_GROUP,
    "Delete an instance group (InstanceGroupsToDelete) and its dedicated subnet.",
    Stage(
        "instance-group",
        Task("Delete Instance Group"),
        Poll("Check Instance Group Deleted", "Is Instance Group Deleted", "Wait For Instance Group Deletion"),
    ),
    Stage("network", Task("Release Compute Subnet")),
)

UPDATE_CLUSTER_SOFTWARE = Workflow(
    OperationKind.UPDATE_CLUSTER_SOFTWARE,
    "Patch the AMI of some or all instance groups with a rolling policy.",
    Stage(
        "rollout",
        Task("Start Software Update"),
        Poll("Check Software Update", "Is Software Update Done", "Wait For Software Update", topic="cluster"),
    ),
)


def _node_action(kind: OperationKind, comment: str, act: str, check: str, choice: str, wait: str) -> Workflow:
    """The batch call (its accepted nodes kept for the check), then a poll until each node has settled."""
    return Workflow(
        kind,
        comment,
        Stage("nodes", Task(act, keep="acted", kept=("nodeIds",)), Poll(check, choice, wait, topic="nodes")),
    )


REBOOT_NODES = _node_action(
    OperationKind.REBOOT_NODES,
    "Soft-reboot nodes (BatchRebootClusterNodes) and wait until each is Running again.",
    "Reboot Nodes",
    "Check Nodes Rebooted",
    "Are Nodes Running",
    "Wait For Nodes To Reboot",
)

REPLACE_NODES = _node_action(
    OperationKind.REPLACE_NODES,
    "Replace nodes with new hardware (BatchReplaceClusterNodes) and wait until each replacement is Running.",
    "Replace Nodes",
    "Check Nodes Replaced",
    "Are Replacements Running",
    "Wait For Replacements",
)

DELETE_NODES = _node_action(
    OperationKind.DELETE_NODES,
    "Delete nodes (BatchDeleteClusterNodes; each group's target count drops) and wait until they are gone.",
    "Delete Nodes",
    "Check Nodes Deleted",
    "Are Nodes Deleted",
    "Wait For Node Deletion",
)

CHECK_NODE_HEALTH = Workflow(
    OperationKind.CHECK_NODE_HEALTH,
    "Deep health checks (StartClusterHealthCheck) on chosen nodes; wait until each node's check has ended (it passed, "
    "or HyperPod rebooted or replaced it).",
    Stage(
        "nodes",
        Task("Start Health Check", keep="acted", kept=("nodeIds",)),
        Poll("Check Health Check", "Are Health Checks Done", "Wait For Health Checks", topic="nodes"),
    ),
)


def _disable(feature: Feature) -> Branch:
    return Branch(
        f"Should Remove {feature_title(feature)}",
        string_equals(f"$.features.{feature.value}.change", "disable"),
        f"Only a disable of {feature.value} runs these steps.",
        _remove_feature(feature),
    )


def _enable_or_update(feature: Feature) -> Branch:
    return Branch(
        f"Should Ensure {feature_title(feature)}",
        string_equals(f"$.features.{feature.value}.change", "enable", "update"),
        f"Only an enable or update of {feature.value} runs these steps.",
        _ensure_feature(feature),
    )


# Feature's order is the dependency order (a contract test holds core.features to it): removals run in reverse.
UPDATE_CLUSTER_FEATURES = Workflow(
    OperationKind.UPDATE_CLUSTER_FEATURES,
    "Advanced features: the changed features only (each a stage), removals first in reverse dependency order, then "
    "enables and updates in dependency order. Every step is level-triggered and polls until its feature has settled.",
    *(Stage(feature.value, _disable(feature)) for feature in reversed(Feature)),
    *(Stage(feature.value, _enable_or_update(feature)) for feature in Feature),
)

IMPORT_CLUSTER = Workflow(
    OperationKind.IMPORT_CLUSTER,
    "Adopt an existing EKS cluster (and its HyperPod cluster): tag it, get access, discover its network and "
    "finished stages.",
    Stage("adoption", Task("Tag Imported Cluster")),
    Stage("cluster-access", Task("Ensure Access Entry")),
    Stage("kubernetes-api", Task("Verify Kubernetes API")),
    Stage("discovery", Task("Discover Cluster Network"), Task("Discover Cluster Stages")),
    Stage("events", Task("Ensure Event Forwarding")),
)
RESTORE_CLUSTER_ACCESS = Workflow(
    OperationKind.RESTORE_CLUSTER_ACCESS,
    "A finished or imported cluster's Kubernetes access as stage 1 and import give it: the control plane's access "
    "entries with their groups and policies, and the workload RBAC, by the same steps.",
    Stage("cluster-access", Task("Ensure Access Entry")),
    Stage("kubernetes-api", Task("Verify Kubernetes API")),
)

DOWNLOAD_TO_STORAGE = Workflow(
    OperationKind.DOWNLOAD_TO_STORAGE,
    "A Hugging Face model or dataset copied into the cluster's S3 claim by a Kubernetes Job; the operation ends with "
    "the Job. A failed Job fails the operation with its reason; resume deletes it and runs it again.",
    Stage(
        "download",
        Task("Start Download Job"),
        Poll("Check Download Job", "Is Download Complete", "Wait For Download"),
    ),
)

PREPARE_TEAM_NAMESPACE = Workflow(
    OperationKind.PREPARE_TEAM_NAMESPACE,
    "A team's namespace ready for workloads: wait for the task governance add-on to make it, copy the cluster's "
    "storage claims and the jobs' identity into it, then wait until its claims are bound. Resume reruns every step.",
    Stage(
        "namespace",
        Poll("Check Team Namespace", "Does Team Namespace Exist", "Wait For Team Namespace"),
    ),
    Stage("claim", Task("Prepare Team Claim")),
    Stage("identity", Task("Prepare Team Identity")),
    Stage(
        "verify",
        Poll("Verify Team Namespace", "Is Team Namespace Ready", "Wait For Team Namespace Ready"),
    ),
)

REMOVE_TEAM_NAMESPACE = Workflow(
    OperationKind.REMOVE_TEAM_NAMESPACE,
    "Undo a team namespace's preparation: its claims and their volumes, its jobs' association and ServiceAccount. "
    "The namespace itself is the task governance add-on's and stays.",
    Stage("claim", Task("Remove Team Claim")),
    Stage("identity", Task("Remove Team Identity")),
)

WORKFLOWS: dict[OperationKind, Workflow] = {
    workflow.kind: workflow
    for workflow in (
        CREATE_EKS_CLUSTER,
        CONFIGURE_CLUSTER_DEPENDENCIES,
        CREATE_HYPERPOD_CLUSTER,
        CONFIGURE_STORAGE,
        CREATE_CLUSTER,
        DELETE_EKS_CLUSTER,
        ADD_INSTANCE_GROUP,
        UPDATE_INSTANCE_GROUP,
        DELETE_INSTANCE_GROUP,
        UPDATE_CLUSTER_SOFTWARE,
        UPDATE_CLUSTER_FEATURES,
        IMPORT_CLUSTER,
        RESTORE_CLUSTER_ACCESS,
        REBOOT_NODES,
        REPLACE_NODES,
        DELETE_NODES,
        CHECK_NODE_HEALTH,
        DOWNLOAD_TO_STORAGE,
        PREPARE_TEAM_NAMESPACE,
        REMOVE_TEAM_NAMESPACE,
    )
}
