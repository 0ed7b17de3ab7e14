import pytest

from controlplane.core.storage.plan import (
    check_storage_request,
    storage_actions,
    storage_facts,
    storage_features,
    storage_plan,
)
from controlplane.models.errors import ClusterNotReadyError, ForeignResourceError
from controlplane.models.storage import ConfigureStorageRequest, FsxRequest
from tests.fakes.deployment import DEPLOYMENT

FSX = FsxRequest(deploymentType="PERSISTENT_2", storageCapacityGiB=2400)


def test_without_a_bucket_name_stage_five_creates_the_clusters_data_bucket():
    plan = storage_plan("demo", "us-west-2", "123", ConfigureStorageRequest())
    assert (plan.bucketName, plan.bucketSource, plan.claimName, plan.namespace) == (
        "instantstart-demo-123-us-west-2",
        "created",
        "s3-claim",
        "default",
    )
    assert plan.fsx is None


def test_the_callers_bucket_is_used_and_kept():
    plan = storage_plan("demo", "us-west-2", "123", ConfigureStorageRequest(bucketName="team-data"))
    assert (plan.bucketName, plan.bucketSource) == ("team-data", "caller")
    (bucket, *_) = storage_actions(DEPLOYMENT, "demo", plan)
    assert (bucket.action, bucket.name) == ("keep", "team-data")


def test_persistent_fsx_gets_the_default_throughput_and_scratch_gets_none():
    persistent = storage_plan("demo", "r", "1", ConfigureStorageRequest(fsx=FSX))
    scratch = storage_plan("demo", "r", "1", ConfigureStorageRequest(fsx=FsxRequest()))
    assert persistent.fsx.perUnitStorageThroughput == 125
    assert scratch.fsx.perUnitStorageThroughput is None


def test_fsx_storage_enables_the_fsx_csi_driver_feature_and_plain_storage_changes_no_feature():
    with_fsx = storage_features(storage_plan("demo", "r", "1", ConfigureStorageRequest(fsx=FSX)))
    plain = storage_features(storage_plan("demo", "r", "1", ConfigureStorageRequest()))
    assert {name: change["change"] for name, change in with_fsx.model_dump().items() if change["change"] != "none"} == {
        "fsxCsiDriver": "enable"
    }
    assert {change["change"] for change in plain.model_dump().values()} == {"none"}


def test_the_plan_lists_fsx_only_when_asked():
    plain = storage_actions(DEPLOYMENT, "demo", storage_plan("demo", "r", "1", ConfigureStorageRequest()))
    fsx = storage_actions(DEPLOYMENT, "demo", storage_plan("demo", "r", "1", ConfigureStorageRequest(fsx=FSX)))
    assert [action.resource for action in plain] == [
        "AWS::S3::Bucket",
        "AWS::IAM::Policy",
        "Kubernetes Role",
        "Kubernetes PersistentVolumeClaim",
    ]
    assert [action.resource for action in fsx[4:]] == [
        "AWS::EKS::Addon",
        "AWS::FSx::FileSystem",
        "Kubernetes PersistentVolumeClaim",
    ]
    assert "2400 GiB PERSISTENT_2, 125 MB/s/TiB" in fsx[5].detail


def test_the_registry_records_the_bucket_and_claims_of_a_finished_stage():
    plain = storage_facts(storage_plan("demo", "r", "1", ConfigureStorageRequest(namespace="ml")))
    fsx = storage_facts(storage_plan("demo", "r", "1", ConfigureStorageRequest(fsx=FSX)))
    assert plain == {"storageBucket": "instantstart-demo-1-r", "storageClaim": "ml/s3-claim", "fsxClaim": None}
    assert fsx["fsxClaim"] == "default/fsx-claim"


def test_storage_is_refused_on_a_cluster_that_brought_its_own_s3_csi_driver(make_record):
    record = make_record("eks", "dependencies", imported=True, adopted=["eks", "dependencies"])
    with pytest.raises(ForeignResourceError, match="its own Mountpoint for S3 CSI driver"):
        check_storage_request(record, fsx=False)


def test_fsx_needs_the_hyperpod_stage_and_plain_storage_does_not(make_record):
    record = make_record("eks", "dependencies")
    check_storage_request(record, fsx=False)
    with pytest.raises(ClusterNotReadyError, match="Finish stage 'hyperpod' first, or omit fsx"):
        check_storage_request(record, fsx=True)
    check_storage_request(make_record("eks", "dependencies", "hyperpod"), fsx=True)
