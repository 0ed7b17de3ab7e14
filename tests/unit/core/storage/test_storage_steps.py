"""Stage 5 steps against in-memory S3, IAM, EKS, EC2, FSx and Kubernetes."""

import pytest

from controlplane.core.identity import s3_bucket_access
from controlplane.core.naming import (
    MANAGED_LABEL,
    MANAGED_LABEL_VALUE,
    S3_CSI_POLICY_NAME,
    fsx_tags,
    ownership_tags,
)
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.storage.namespace import owned_namespace
from controlplane.core.storage.plan import storage_features, storage_plan
from controlplane.core.storage.steps import StorageService
from controlplane.models.clusters import ImportedNetwork
from controlplane.models.errors import (
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
    ResourceNotReadyError,
)
from controlplane.models.operations import OperationKind
from controlplane.models.storage import ConfigureStorageRequest, FsxRequest
from tests.fakes.account import ACCOUNT_ID
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.network import InMemoryNetworkGateway
from tests.fakes.storage import InMemoryBucketGateway, InMemoryFileSystemGateway

DATA_BUCKET = f"instantstart-demo-{ACCOUNT_ID}-us-west-2"


@pytest.fixture
def iam():
    gateway = InMemoryIamGateway()
    gateway.create_role(
        "instantstart-demo-s3-csi", {}, ownership_tags(DEPLOYMENT, "demo"), "arn:aws:iam::123456789012:policy/boundary"
    )
    gateway.put_role_policy(
        "instantstart-demo-s3-csi", S3_CSI_POLICY_NAME, s3_bucket_access(DEPLOYMENT, ["instantstart-demo-*"])
    )
    return gateway


@pytest.fixture
def eks():
    gateway = InMemoryEksGateway()
    gateway.add_cluster("eks-cluster-demo")
    return gateway


@pytest.fixture
def gateways(iam, eks):
    return {
        "iam": iam,
        "eks": eks,
        "kubernetes": InMemoryKubernetesGateway(),
        "buckets": InMemoryBucketGateway(),
        "network": InMemoryNetworkGateway(),
        "file_systems": InMemoryFileSystemGateway(),
    }


@pytest.fixture
def storage(gateways, clock):
    poll = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=5), clock)
    return StorageService(**gateways, poll=poll, deployment=DEPLOYMENT)


@pytest.fixture
def configure(make_record):
    """The configure_storage input of a request on cluster `demo` (any record field overridden)."""

    def build(request=None, **record_fields):
        record = make_record("eks", "dependencies", "hyperpod", **record_fields)
        plan = storage_plan("demo", "us-west-2", ACCOUNT_ID, request or ConfigureStorageRequest())
        return workflow_input(
            OperationKind.CONFIGURE_STORAGE,
            "op-1",
            record,
            ACCOUNT_ID,
            storage=plan,
            features=storage_features(plan),
        )

    return build


def test_the_data_bucket_is_created_once_and_a_foreign_bucket_of_its_name_refused(storage, configure, gateways):
    ctx = configure()
    assert storage.ensure_data_bucket(ctx) == {"bucketName": DATA_BUCKET, "action": "created"}
    assert storage.ensure_data_bucket(ctx)["action"] == "found"
    gateways["buckets"].buckets[DATA_BUCKET].tags = {}
    with pytest.raises(ForeignResourceError):
        storage.ensure_data_bucket(ctx)


def test_the_callers_bucket_must_exist_and_is_never_created(storage, configure, gateways):
    ctx = configure(ConfigureStorageRequest(bucketName="team-data"))
    with pytest.raises(InvalidRequestError, match="does not exist"):
        storage.ensure_data_bucket(ctx)
    gateways["buckets"].create_bucket("team-data", {})
    assert storage.ensure_data_bucket(ctx)["action"] == "using the caller's bucket"
    assert list(gateways["buckets"].buckets) == ["team-data"]


def test_bucket_access_is_widened_to_the_mounted_bucket_keeping_earlier_grants(storage, configure, iam):
    storage.grant_bucket_access(configure(ConfigureStorageRequest(bucketName="first")))
    result = storage.grant_bucket_access(configure(ConfigureStorageRequest(bucketName="second")))
    assert result["buckets"] == "first, instantstart-demo-*, second"
    wanted = s3_bucket_access(DEPLOYMENT, ["first", "instantstart-demo-*", "second"])
    assert iam.role_policy("instantstart-demo-s3-csi", S3_CSI_POLICY_NAME) == wanted


def test_bucket_access_needs_the_dependencies_stages_policy(storage, configure, iam):
    iam.roles["instantstart-demo-s3-csi"].inline.clear()
    with pytest.raises(ResourceNotReadyError, match="stage 3 must finish first"):
        storage.grant_bucket_access(configure())


def test_the_claim_is_a_static_volume_bound_to_the_bucket(storage, configure, gateways):
    ctx = configure(ConfigureStorageRequest(claimName="data", namespace="ml"))
    assert storage.apply_storage_claim(ctx) == {
        "applied": "Namespace/ml, Role/ml/instantstart-secret-reader, RoleBinding/ml/instantstart-secret-reader, "
        "PersistentVolume/pv-demo-data, PersistentVolumeClaim/ml/data"
    }
    objects = gateways["kubernetes"].api("eks-cluster-demo").objects
    volume = objects["PersistentVolume/pv-demo-data"]
    assert volume["spec"]["csi"]["volumeAttributes"] == {"bucketName": DATA_BUCKET}
    assert volume["spec"]["claimRef"] == {"namespace": "ml", "name": "data"}
    assert objects["Namespace/ml"]["metadata"]["labels"] == {MANAGED_LABEL: MANAGED_LABEL_VALUE}


def test_the_claim_goes_into_a_namespace_labelled_as_ours_or_default_as_it_is(storage, configure, gateways):
    objects = gateways["kubernetes"].api("eks-cluster-demo").objects
    objects["Namespace/ml"] = owned_namespace("ml")
    objects["Namespace/default"] = {"kind": "Namespace", "metadata": {"name": "default"}}
    for namespace in ("ml", "default"):
        applied = storage.apply_storage_claim(configure(ConfigureStorageRequest(namespace=namespace)))["applied"]
        assert applied == (
            f"Role/{namespace}/instantstart-secret-reader, RoleBinding/{namespace}/instantstart-secret-reader, "
            f"PersistentVolume/pv-demo-s3-claim, PersistentVolumeClaim/{namespace}/s3-claim"
        )


def test_the_claim_never_goes_into_a_namespace_someone_else_made(storage, configure, gateways):
    objects = gateways["kubernetes"].api("eks-cluster-demo").objects
    objects["Namespace/theirs"] = {"kind": "Namespace", "metadata": {"name": "theirs", "labels": {"team": "x"}}}
    with pytest.raises(ForeignResourceError, match="kubectl label namespace theirs"):
        storage.apply_storage_claim(configure(ConfigureStorageRequest(namespace="theirs")))
    assert "PersistentVolumeClaim/theirs/s3-claim" not in objects


def test_the_fsx_file_system_goes_into_the_first_compute_subnet_once_per_operation(storage, configure, gateways):
    network = gateways["network"]
    vpc = network.create_vpc("demo", "10.90.0.0/16")
    for zone in ("us-west-2c", "us-west-2b"):
        network.create_subnet("demo", vpc.vpc_id, f"compute-{zone}", "10.90.64.0/20", zone, False)
    group = network.create_security_group("demo", vpc.vpc_id)
    ctx = configure(ConfigureStorageRequest(fsx=FsxRequest()))
    created = storage.create_fsx_file_system(ctx)
    assert created["action"] == "created"
    spec = gateways["file_systems"].specs[created["fileSystemId"]]
    assert spec.subnet_id == network.find_subnets("demo")["compute-us-west-2b"].subnet_id
    assert (spec.security_group_ids, spec.tags) == ((group,), fsx_tags(DEPLOYMENT, "demo", "fsx-claim"))
    assert storage.create_fsx_file_system(ctx) == {**created, "action": "found"}


def test_an_imported_cluster_puts_the_fsx_file_system_into_its_own_subnet_and_group(storage, configure, gateways):
    imported = ImportedNetwork(vpcId="vpc-1", vpcCidr="10.60.0.0/16", subnetIds=["subnet-team"], securityGroupId="sg-t")
    ctx = configure(ConfigureStorageRequest(fsx=FsxRequest()), imported=True, network=imported)
    created = storage.create_fsx_file_system(ctx)
    spec = gateways["file_systems"].specs[created["fileSystemId"]]
    assert (spec.subnet_id, spec.security_group_ids) == ("subnet-team", ("sg-t",))


def test_an_fsx_file_system_is_checked_again_when_one_is_usually_available(gateways, clock, configure):
    storage = StorageService(**gateways, poll=Poller(PollSettings(5, 7200), clock), deployment=DEPLOYMENT)
    ctx = configure(ConfigureStorageRequest(fsx=FsxRequest(claimName="scratch")))
    network = gateways["network"]
    vpc = network.create_vpc("demo", "10.90.0.0/16")
    network.create_subnet("demo", vpc.vpc_id, "compute-us-west-2c", "10.90.64.0/20", "us-west-2c", False)
    network.create_security_group("demo", vpc.vpc_id)
    storage.create_fsx_file_system(ctx)

    assert storage.check_fsx_file_system(ctx).waitSeconds == 8 * 60


def test_fsx_waits_until_available_fails_on_a_failed_file_system_and_then_mounts_it(storage, configure, gateways):
    ctx = configure(ConfigureStorageRequest(fsx=FsxRequest(claimName="scratch")))
    with pytest.raises(ResourceNotReadyError, match="no compute subnet"):
        storage.create_fsx_file_system(ctx)
    network = gateways["network"]
    vpc = network.create_vpc("demo", "10.90.0.0/16")
    network.create_subnet("demo", vpc.vpc_id, "compute-us-west-2c", "10.90.64.0/20", "us-west-2c", False)
    network.create_security_group("demo", vpc.vpc_id)
    file_system = storage.create_fsx_file_system(ctx)["fileSystemId"]
    assert storage.check_fsx_file_system(ctx).done is False
    with pytest.raises(ResourceNotReadyError):
        storage.apply_fsx_claim(ctx)
    gateways["file_systems"].set_lifecycle(file_system, "MISCONFIGURED", "ports 988 closed")
    with pytest.raises(DependencyFailedError, match="ports 988 closed"):
        storage.check_fsx_file_system(ctx)
    gateways["file_systems"].set_lifecycle(file_system, "AVAILABLE")
    assert storage.check_fsx_file_system(ctx).done
    assert (
        storage.apply_fsx_claim(ctx)["applied"]
        == "PersistentVolume/pv-demo-scratch, PersistentVolumeClaim/default/scratch"
    )
    volume = gateways["kubernetes"].api("eks-cluster-demo").objects["PersistentVolume/pv-demo-scratch"]
    assert volume["spec"]["csi"]["volumeHandle"] == file_system


def test_the_fsx_steps_refuse_a_plan_without_fsx(storage, configure):
    with pytest.raises(InvalidRequestError, match="no fsx part"):
        storage.check_fsx_file_system(configure())


def test_deleting_the_cluster_deletes_its_file_systems_and_waits_until_they_are_gone(
    storage, configure, gateways, make_record
):
    deleting = workflow_input(OperationKind.DELETE_EKS_CLUSTER, "op-2", make_record(), ACCOUNT_ID)
    assert storage.delete_fsx_file_systems(deleting) == {"deleting": "none"}
    network = gateways["network"]
    vpc = network.create_vpc("demo", "10.90.0.0/16")
    network.create_subnet("demo", vpc.vpc_id, "compute-us-west-2c", "10.90.64.0/20", "us-west-2c", False)
    network.create_security_group("demo", vpc.vpc_id)
    file_system = storage.create_fsx_file_system(configure(ConfigureStorageRequest(fsx=FsxRequest())))["fileSystemId"]
    assert storage.delete_fsx_file_systems(deleting) == {"deleting": file_system}
    assert storage.check_fsx_file_systems_deleted(deleting).done is False
    gateways["file_systems"].file_systems.clear()
    assert storage.check_fsx_file_systems_deleted(deleting).status == "DELETED"
