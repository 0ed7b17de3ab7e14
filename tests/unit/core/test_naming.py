"""Every deterministic name, as AWS, IAM conditions and the sandbox see it."""

from controlplane.core import naming


def test_resources_are_named_from_the_cluster_tag():
    assert naming.eks_cluster_name("demo") == "eks-cluster-demo"
    assert naming.hyperpod_cluster_name("demo") == "hp-cluster-demo"
    assert naming.eks_cluster_role_name("demo") == "instantstart-demo-eks-cluster"
    assert naming.hyperpod_execution_role_name("demo") == "instantstart-demo-hyperpod-exec"
    assert naming.training_operator_role_name("demo") == "instantstart-demo-training-operator"
    assert naming.s3_csi_role_name("demo") == "instantstart-demo-s3-csi"
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
    assert naming.fsx_tags("demo", "fsx-claim") == {
        naming.CLUSTER_TAG_KEY: "demo",
        naming.MANAGED_BY_KEY: naming.MANAGED_BY_VALUE,
        naming.ROLE_TAG_KEY: "fsx-fsx-claim",
    }


def test_only_resources_tagged_as_ours_for_this_cluster_are_owned():
    assert naming.is_owned(naming.ownership_tags("demo"), "demo")
    assert not naming.is_owned(naming.ownership_tags("demo"), "other")
    assert not naming.is_owned(naming.adoption_tags("demo"), "demo")


def test_each_run_of_an_operation_has_its_own_execution_name():
    assert naming.execution_name("op-1", 1) == "op-1"
    assert naming.execution_name("op-1", 3) == "op-1-r3"
