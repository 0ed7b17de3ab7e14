"""The reviewed image table (config/images.json) and the manifests that use it: every image the control plane
applies is named there, every AWS registry host is `<account>.dkr.ecr.<region>.<that Region's partition's DNS
suffix>` (botocore's partition data), and the Regions a cluster can be built in are those of the health agent."""

from __future__ import annotations

import re

import pytest
from botocore.loaders import create_loader
from botocore.regions import EndpointResolver

from controlplane.adapters.k8s.manifests import MANIFESTS_DIR
from controlplane.config import cluster_dependencies
from controlplane.config.images import image_table
from controlplane.core.dependencies.plan import dependency_images, supported_regions
from controlplane.core.features.catalog import CATALOG
from controlplane.models.errors import UnsupportedRegionError

ENDPOINTS = EndpointResolver(create_loader().load_data("endpoints"))
ECR_HOST = re.compile(r"^\d{12}\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.(?P<suffix>[a-z.]+)$")
# The HyperPod chart's Region-to-account map (aws/sagemaker-hyperpod-cli @ 011ca92).
CHART_REGIONS = {
    "us-east-1", "us-west-2", "us-east-2", "us-west-1", "eu-central-1", "eu-north-1", "eu-west-1", "eu-west-2",
    "eu-south-2", "ap-northeast-1", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3",
    "ap-southeast-4", "ca-central-1", "sa-east-1",
}  # fmt: skip


def test_every_manifest_names_its_image_through_the_table_and_hard_codes_none() -> None:
    table = image_table()
    bundles = [spec.bundle.pin for spec in CATALOG.values() if spec.bundle is not None]
    pins = [*cluster_dependencies().manifests.values(), *bundles]
    assert {pin.image for pin in pins if pin.image} <= set(table.images)
    assert {image.registry for image in table.images.values()} <= set(table.registries)
    runs = {pin.file: pin.image is not None for pin in pins}
    for path in MANIFESTS_DIR.glob("*/*.yaml"):
        images = re.findall(r"^\s*(?:- )?image:\s*(\S+)", path.read_text(), flags=re.MULTILINE)
        assert set(images) == ({"${image}"} if runs[path.name] else set()), (path.name, images)


@pytest.mark.parametrize("registry", sorted(name for name, r in image_table().registries.items() if r.hosts))
def test_each_aws_registry_host_is_in_its_region_and_the_dns_suffix_of_that_region_s_partition(registry: str) -> None:
    for region, host in image_table().registries[registry].hosts.items():
        match = ECR_HOST.match(host)
        assert match is not None, host
        partition = ENDPOINTS.get_partition_for_region(region)
        assert (match["region"], match["suffix"]) == (region, ENDPOINTS.get_partition_dns_suffix(partition)), host


@pytest.mark.parametrize(
    ("image", "region", "uri_start"),
    [
        ("health-monitoring-agent", "us-east-1", "767398015722.dkr.ecr.us-east-1.amazonaws.com/"),
        ("health-monitoring-agent", "us-west-2", "905418368575.dkr.ecr.us-west-2.amazonaws.com/"),
        ("health-monitoring-agent", "eu-west-1", "533267293120.dkr.ecr.eu-west-1.amazonaws.com/"),
        ("efa-device-plugin", "us-east-1", "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/"),
        ("efa-device-plugin", "ap-southeast-3", "296578399912.dkr.ecr.ap-southeast-3.amazonaws.com/eks/"),
        ("efa-device-plugin", "cn-north-1", "918309763551.dkr.ecr.cn-north-1.amazonaws.com.cn/eks/"),
        ("efa-device-plugin", "us-gov-west-1", "013241004608.dkr.ecr.us-gov-west-1.amazonaws.com/eks/"),
        ("nvidia-device-plugin", "cn-north-1", "nvcr.io/nvidia/"),
        ("neuron-device-plugin", "us-gov-west-1", "public.ecr.aws/neuron/"),
    ],
)
def test_each_region_pulls_from_the_registry_that_serves_it(image: str, region: str, uri_start: str) -> None:
    assert (image_table().uri(image, region) or "").startswith(uri_start)


def test_clusters_can_be_built_where_the_health_agent_and_every_other_image_have_a_registry() -> None:
    every_region = {region for partition in ENDPOINTS.get_available_partitions() for region in
                    ENDPOINTS.get_available_endpoints("eks", partition)}  # fmt: skip

    assert set(supported_regions(cluster_dependencies(), every_region)) == CHART_REGIONS


@pytest.mark.parametrize("region", ["cn-north-1", "us-gov-west-1", "af-south-1", "eu-west-3"])
def test_a_region_without_the_health_agent_is_refused_naming_it(region: str) -> None:
    with pytest.raises(UnsupportedRegionError) as refused:
        dependency_images(cluster_dependencies(), region)
    assert refused.value.details["images"] == ["health-monitoring-agent"]
    assert set(refused.value.details["supportedRegions"]) == CHART_REGIONS
