"""Every deterministic name, as AWS, IAM conditions and the sandbox see it."""

from dataclasses import replace
from pathlib import Path

from controlplane.core import naming
from tests.fakes.deployment import DEPLOYMENT


def test_resources_are_named_from_the_cluster_tag():
    assert naming.eks_cluster_name("demo") == "eks-cluster-demo"
    assert naming.hyperpod_cluster_name("demo") == "hp-cluster-demo"
    assert naming.eks_cluster_role_name(DEPLOYMENT, "demo") == "instantstart-demo-eks-cluster"
    assert naming.hyperpod_execution_role_name(DEPLOYMENT, "demo") == "instantstart-demo-hyperpod-exec"
    assert naming.training_operator_role_name(DEPLOYMENT, "demo") == "instantstart-demo-training-operator"
    assert naming.s3_csi_role_name(DEPLOYMENT, "demo") == "instantstart-demo-s3-csi"
    assert naming.resource_name("demo", "public-a") == "instantstart-demo-public-a"


def test_buckets_carry_account_and_region_and_lifecycle_scripts_use_the_sagemaker_prefix():
    assert naming.data_bucket_name("demo", "123", "us-west-2") == "instantstart-demo-123-us-west-2"
    assert naming.lifecycle_bucket_name("demo", "123", "us-west-2") == "sagemaker-is-demo-123-us-west-2"
    assert naming.managed_bucket_pattern("demo") == "instantstart-demo-*"


def test_the_managed_bucket_pattern_covers_the_data_bucket_only_of_its_own_cluster():
    from fnmatch import fnmatch

    assert fnmatch(naming.data_bucket_name("demo", "1", "r"), naming.managed_bucket_pattern("demo"))
    assert not fnmatch(naming.data_bucket_name("other", "1", "r"), naming.managed_bucket_pattern("demo"))


def test_an_imported_hyperpod_cluster_keeps_its_name():
    assert naming.hyperpod_cluster_of("demo", None) == "hp-cluster-demo"
    assert naming.hyperpod_cluster_of("demo", "team-hp") == "team-hp"


def test_subnet_keys_name_the_role_and_zone_or_the_dedicated_group():
    assert [naming.subnet_key(role, index) for role in ("public", "private") for index in (0, 1)] == [
        "public-a",
        "public-b",
        "private-a",
        "private-b",
    ]
    assert naming.compute_subnet_key("us-west-2c") == "compute-us-west-2c"
    assert naming.compute_subnet_key("us-west-2c", "gpu") == "compute-us-west-2c-gpu"


def test_volumes_and_file_systems_are_named_per_claim():
    assert naming.persistent_volume_name("demo", "s3-claim") == "pv-demo-s3-claim"
    assert naming.fsx_tags(DEPLOYMENT, "demo", "fsx-claim") == {
        naming.CLUSTER_TAG_KEY: "demo",
        naming.MANAGED_BY_KEY: "instantstart",
        naming.DEPLOYMENT_REGION_KEY: "us-east-1",
        naming.ROLE_TAG_KEY: "fsx-fsx-claim",
    }


def test_only_resources_tagged_as_ours_for_this_cluster_are_owned():
    assert naming.is_owned(DEPLOYMENT, naming.ownership_tags(DEPLOYMENT, "demo"), "demo")
    assert not naming.is_owned(DEPLOYMENT, naming.ownership_tags(DEPLOYMENT, "demo"), "other")
    assert not naming.is_owned(DEPLOYMENT, naming.adoption_tags("demo"), "demo")


def test_the_deployment_name_starts_the_iam_names_and_marks_what_it_owns():
    blue = replace(DEPLOYMENT, name="blue")
    assert naming.eks_cluster_role_name(blue, "demo") == "blue-demo-eks-cluster"
    assert naming.tiered_storage_policy_name(blue, "demo") == "blue-demo-tiered-ckpt"
    assert naming.ownership_tags(blue, "demo")[naming.MANAGED_BY_KEY] == "blue"


def test_a_resource_of_another_deployment_or_region_or_without_tags_is_not_owned():
    tags = naming.ownership_tags(DEPLOYMENT, "demo")
    assert not naming.is_owned(replace(DEPLOYMENT, name="blue"), tags, "demo")
    assert not naming.is_owned(replace(DEPLOYMENT, region="eu-west-1"), tags, "demo")
    legacy = {naming.CLUSTER_TAG_KEY: "demo", naming.MANAGED_BY_KEY: "instantstart"}
    assert not naming.is_owned(DEPLOYMENT, legacy, "demo")


def test_the_owner_of_a_resource_is_named_by_its_tags():
    tags = naming.ownership_tags(replace(DEPLOYMENT, name="blue", region="eu-west-1"), "demo")
    assert naming.owner(tags) == "It belongs to deployment 'blue' in Region eu-west-1 (cluster 'demo')."
    assert naming.owner({}) == "It carries no InstantStart ownership tags."


def test_arns_are_built_in_the_deployments_partition():
    china = naming.Deployment(name="instantstart", region="cn-north-1", partition="aws-cn")
    assert china.managed_policy_arn("AmazonEKSClusterPolicy") == "arn:aws-cn:iam::aws:policy/AmazonEKSClusterPolicy"
    assert china.policy_arn("123", "p") == "arn:aws-cn:iam::123:policy/p"
    assert china.bucket_arn("instantstart-demo-*") == "arn:aws-cn:s3:::instantstart-demo-*"


def test_each_run_of_an_operation_has_its_own_execution_name():
    assert naming.execution_name("op-1", 1) == "op-1"
    assert naming.execution_name("op-1", 3) == "op-1-r3"


def test_the_control_plane_writes_no_partition_into_an_arn():
    """ARNs come from `Deployment` (or the stack's `{partition}`): the code runs in aws-cn and aws-us-gov too."""
    controlplane = Path(naming.__file__).parents[1]
    literals = [
        f"{path.relative_to(controlplane)}:{number}"
        for path in sorted(controlplane.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "arn:aws:" in line
    ]
    assert literals == []
