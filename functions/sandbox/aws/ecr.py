"""The sandbox's ECR, as a node's kubelet meets it: which AWS-owned registries serve an image in which Region.

An ECR registry is one account in one Region (`<account>.dkr.ecr.<region>.<partition's DNS suffix>`); a repository
exists only where its owner replicated it. A pull from a registry that does not hold the repository in that Region
fails (the kubelet reports `ErrImagePull`, then `ImagePullBackOff`), which is what a node meets when a manifest
names an account of another Region. This is the sandbox's own account of AWS's registries, kept apart from the
product's reviewed table (`controlplane/config/images.json`) so that a wrong entry there fails here. Sources:
- Amazon EKS's image registries, one account per Region: EKS user guide, "View Amazon container image registries
  for Amazon EKS add-ons", https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html
- the HyperPod health-monitoring agent's registries: the HyperPod Helm chart's Region-to-account map,
  aws/sagemaker-hyperpod-cli helm_chart/HyperPodHelmChart/charts/health-monitoring-agent/templates/_helpers.tpl
Registries of other accounts (the user's own) and public registries (nvcr.io, public.ecr.aws, quay.io) serve
every Region here: the sandbox cannot know what they hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from botocore.loaders import create_loader
from botocore.regions import EndpointResolver

_ECR_HOST = re.compile(r"^(?P<account>\d{12})\.dkr\.ecr(-fips)?\.(?P<region>[a-z0-9-]+)\.(?P<suffix>[a-z.]+)$")

EKS_REPOSITORIES = ("eks/",)
HEALTH_AGENT_REPOSITORIES = ("hyperpod-health-monitoring-agent",)
_EKS_SHARED_ACCOUNT_REGIONS = (
    "ap-northeast-1 ap-northeast-2 ap-northeast-3 ap-south-1 ap-southeast-1 ap-southeast-2 ca-central-1 eu-central-1 "
    "eu-north-1 eu-west-1 eu-west-2 eu-west-3 sa-east-1 us-east-1 us-east-2 us-west-1 us-west-2"
)
# EKS's registries in opt-in Regions, China and GovCloud: one account per Region.
_EKS_OWN_ACCOUNTS = {
    "877085696533": "af-south-1",
    "800184023465": "ap-east-1",
    "296578399912": "ap-southeast-3",
    "900889452093": "ap-south-2",
    "491585149902": "ap-southeast-4",
    "151610086707": "ap-southeast-5",
    "333609536671": "ap-southeast-6",
    "121268973566": "ap-southeast-7",
    "918309763551": "cn-north-1",
    "961992271922": "cn-northwest-1",
    "590381155156": "eu-south-1",
    "455263428931": "eu-south-2",
    "900612956339": "eu-central-2",
    "066635153087": "il-central-1",
    "730335286997": "mx-central-1",
    "558608220178": "me-south-1",
    "759879836304": "me-central-1",
    "761377655185": "ca-west-1",
    "151742754352": "us-gov-east-1",
    "013241004608": "us-gov-west-1",
}
# The health-monitoring agent: one account per Region, in the Regions the chart maps.
_HEALTH_AGENT_ACCOUNTS = {
    "767398015722": "us-east-1",
    "905418368575": "us-west-2",
    "851725546812": "us-east-2",
    "011528288828": "us-west-1",
    "211125453373": "eu-central-1",
    "654654141839": "eu-north-1",
    "533267293120": "eu-west-1",
    "011528288831": "eu-west-2",
    "626887787726": "eu-south-2",
    "533267052152": "ap-northeast-1",
    "011528288864": "ap-south-1",
    "905418428165": "ap-southeast-1",
    "851725636348": "ap-southeast-2",
    "971422672635": "ap-southeast-3",
    "084375568333": "ap-southeast-4",
    "843976229209": "ca-central-1",
    "025066253954": "sa-east-1",
}


@dataclass(frozen=True)
class AwsRegistry:
    """An AWS-owned registry account: the Regions it serves and the repositories it holds there."""

    regions: frozenset[str]
    repositories: tuple[str, ...]

    def holds(self, repository: str) -> bool:
        return any(repository.startswith(prefix) for prefix in self.repositories)


AWS_REGISTRIES: dict[str, AwsRegistry] = {
    "602401143452": AwsRegistry(frozenset(_EKS_SHARED_ACCOUNT_REGIONS.split()), EKS_REPOSITORIES),
    **{account: AwsRegistry(frozenset({region}), EKS_REPOSITORIES) for account, region in _EKS_OWN_ACCOUNTS.items()},
    **{
        account: AwsRegistry(frozenset({region}), HEALTH_AGENT_REPOSITORIES)
        for account, region in _HEALTH_AGENT_ACCOUNTS.items()
    },
}


@cache
def _endpoints() -> EndpointResolver:
    return EndpointResolver(create_loader().load_data("endpoints"))


def _dns_suffix(region: str) -> str:
    endpoints = _endpoints()
    return str(endpoints.get_partition_dns_suffix(endpoints.get_partition_for_region(region)))


def pull_error(image: str) -> str | None:
    """Why a kubelet cannot pull `image` (None: it can): an AWS-owned registry that does not hold the repository in
    the Region its host names, or a host whose DNS suffix is not that Region's partition's."""
    host, _, rest = image.partition("/")
    match = _ECR_HOST.match(host)
    registry = AWS_REGISTRIES.get(match["account"]) if match else None
    if match is None or registry is None:
        return None
    repository = re.split(r"[:@]", rest, maxsplit=1)[0]
    region = match["region"]
    if match["suffix"] != _dns_suffix(region):
        return f"dial tcp: lookup {host}: no such host"
    if region not in registry.regions or not registry.holds(repository):
        return (
            f'failed to pull and unpack image "{image}": failed to resolve reference "{image}": {host}/{repository}: '
            "not found"
        )
    return None
