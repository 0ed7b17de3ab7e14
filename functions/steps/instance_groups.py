"""Instance groups and cluster software on a running HyperPod cluster: UpdateCluster to add, change or delete a
group (its execution role passed to SageMaker again), UpdateClusterSoftware, and the checks that wait for them; only
on the control plane's own clusters. A group's compute subnet is the network's (`steps.network`)."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.conditions import MANAGED_RESOURCE
from controlplane.access.ec2 import describe
from controlplane.access.grant import Grant
from controlplane.access.hyperpod import (
    DESCRIBE_HYPERPOD,
    HYPERPOD_CLUSTERS,
    HYPERPOD_CLUSTERS_REASON,
    HYPERPOD_EXEC_ROLES,
    PASS_EXECUTION_ROLE,
    STAGE4_ROLES_REASON,
    TRAINING_PLANS,
    TRAINING_PLANS_REASON,
    UPDATE_HYPERPOD,
)
from controlplane.access.iam import read_roles
from controlplane.models.workflow import (
    AddInstanceGroupInput,
    DeleteInstanceGroupInput,
    InstanceGroupInput,
    UpdateClusterSoftwareInput,
    UpdateInstanceGroupInput,
)
from steps.groups import INSTANCE_GROUPS
from steps.step import work

# A training-plan group: UpdateCluster is authorized on the plan too (no tag: plans are bought outside).
_UPDATE_WITH_TRAINING_PLAN = Grant(("sagemaker:UpdateCluster",), TRAINING_PLANS, reason=TRAINING_PLANS_REASON)

STEPS = (
    work(
        "Add Instance Group",
        INSTANCE_GROUPS,
        AddInstanceGroupInput,
        lambda ctx: wiring.instance_group_steps(ctx.region).add_instance_group(ctx),
        (
            DESCRIBE_HYPERPOD,
            UPDATE_HYPERPOD,
            _UPDATE_WITH_TRAINING_PLAN,
            read_roles(HYPERPOD_EXEC_ROLES, STAGE4_ROLES_REASON),
            PASS_EXECUTION_ROLE,
            describe("DescribeSubnets"),
        ),
    ),
    work(
        "Update Instance Group",
        INSTANCE_GROUPS,
        UpdateInstanceGroupInput,
        lambda ctx: wiring.instance_group_steps(ctx.region).update_instance_group(ctx),
        # Resending a group resends its execution role.
        (DESCRIBE_HYPERPOD, UPDATE_HYPERPOD, _UPDATE_WITH_TRAINING_PLAN, PASS_EXECUTION_ROLE),
    ),
    work(
        "Check Instance Group",
        INSTANCE_GROUPS,
        InstanceGroupInput,
        lambda ctx: wiring.instance_group_steps(ctx.region).check_instance_group(ctx),
        (DESCRIBE_HYPERPOD,),
    ),
    work(
        "Delete Instance Group",
        INSTANCE_GROUPS,
        DeleteInstanceGroupInput,
        lambda ctx: wiring.instance_group_steps(ctx.region).delete_instance_group(ctx),
        (DESCRIBE_HYPERPOD, UPDATE_HYPERPOD),
    ),
    work(
        "Check Instance Group Deleted",
        INSTANCE_GROUPS,
        DeleteInstanceGroupInput,
        lambda ctx: wiring.instance_group_steps(ctx.region).check_instance_group_deleted(ctx),
        (DESCRIBE_HYPERPOD,),
    ),
    work(
        "Start Software Update",
        INSTANCE_GROUPS,
        UpdateClusterSoftwareInput,
        lambda ctx: wiring.instance_group_steps(ctx.region).start_software_update(ctx),
        (
            DESCRIBE_HYPERPOD,
            Grant(("sagemaker:UpdateClusterSoftware",), HYPERPOD_CLUSTERS, MANAGED_RESOURCE, HYPERPOD_CLUSTERS_REASON),
        ),
    ),
    work(
        "Check Software Update",
        INSTANCE_GROUPS,
        UpdateClusterSoftwareInput,
        lambda ctx: wiring.instance_group_steps(ctx.region).check_software_update(ctx),
        (DESCRIBE_HYPERPOD,),
    ),
)
