import pytest
from pydantic import ValidationError

from controlplane.models.clusters import CreateEksClusterRequest


def test_minimal_request_defaults_kubernetes_version():
    request = CreateEksClusterRequest(clusterTag="demo", region="us-west-2")
    assert request.kubernetesVersion == "1.34"
    assert request.vpcCidr is None


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"clusterTag": "Demo"}, "clusterTag"),
        ({"clusterTag": "d"}, "clusterTag"),
        ({"clusterTag": "demo", "color": "blue"}, "color"),
        ({"clusterTag": "demo", "vpcCidr": "10.0.0.0/8"}, "/16 and /18"),
        ({"clusterTag": "demo", "vpcCidr": "8.8.0.0/16"}, "private range"),
        ({"clusterTag": "demo", "vpcCidr": "10.0.0.1/16"}, "not an IPv4 network"),
        ({"clusterTag": "demo", "kubernetesVersion": "1.20"}, "kubernetesVersion"),
    ],
)
def test_invalid_requests_are_refused_with_the_field_named(fields, fragment):
    with pytest.raises(ValidationError) as refused:
        CreateEksClusterRequest(**{"region": "us-west-2", **fields})
    assert fragment in str(refused.value)
