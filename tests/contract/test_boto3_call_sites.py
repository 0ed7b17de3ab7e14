"""Every boto3 call the Lambda code makes, checked against the service models of the botocore the layer ships: the
operation exists and every parameter (and every key the code builds literally, at any depth) is in its input shape.
Static (tests/contract/boto3_calls.py), so a call no test reaches is checked as well; the Lambda runtime's own botocore
lags (1.40 has no CreateCluster.NodeProvisioningMode), which is why the layer ships this one."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import botocore
import botocore.session

from controlplane.adapters.aws.sagemaker import CLUSTER_SETTINGS
from infra.layer import requirements
from tests.contract.boto3_calls import Checker, Report, lambda_modules, sdk_integrations

ROOT = Path(__file__).resolve().parents[2]
# `**spreads` whose keys the code does not spell out where it calls, each reviewed: what they carry is checked below.
REVIEWED_SPREADS = {
    # query_page's `query`: the KeyConditionExpression/IndexName/… of each caller's Query, built as literals there.
    "controlplane.adapters.aws.dynamo.shared dynamodb.Query",
    # update_settings' `settings`: DescribeCluster's CLUSTER_SETTINGS fields, sent back as they were read.
    "controlplane.adapters.aws.sagemaker sagemaker.UpdateCluster",
}


@cache
def report() -> Report:
    return Checker(lambda_modules(ROOT / "functions")).run()


def check(source: str) -> Report:
    return Checker({"adapter": "from controlplane.adapters.aws.session import client\n" + source}).run()


def test_the_layer_pins_the_botocore_whose_models_are_checked() -> None:
    pins = [line for line in requirements() if line.startswith(("boto3==", "botocore=="))]
    assert sorted(pins) == sorted([f"botocore=={botocore.__version__}", f"boto3=={_boto3_version()}"])


def test_every_boto3_call_site_names_an_operation_and_parameters_of_the_pinned_models() -> None:
    found = report()

    print(f"\n{len(found.call_sites)} boto3 call sites, {found.parameters} parameters checked")
    assert found.findings == []
    assert found.unresolved == []
    assert len(found.call_sites) >= 180
    assert found.parameters >= 700
    sites = " ".join(found.call_sites)
    for operation in (
        "sagemaker.CreateCluster",
        "sagemaker.BatchRebootClusterNodes",
        "sagemaker.BatchReplaceClusterNodes",
    ):
        assert operation in sites


def test_only_reviewed_keyword_spreads_are_not_statically_known() -> None:
    spreads = {f"{site.split(':')[0]} {site.split(' ')[1]}" for site in report().unknown_spreads}
    assert spreads == REVIEWED_SPREADS
    update = botocore.session.get_session().get_service_model("sagemaker").operation_model("UpdateCluster")
    assert set(CLUSTER_SETTINGS) <= set(update.input_shape.members)


def test_the_state_machines_sdk_integrations_name_operations_and_parameters_of_the_models() -> None:
    session = botocore.session.get_session()
    checked = 0
    for name, service, action, parameters in sdk_integrations(ROOT / "statemachines"):
        operation = session.get_service_model(service).operation_model(action[0].upper() + action[1:])
        assert {key.removesuffix(".$") for key in parameters} <= set(operation.input_shape.members), name
        checked += 1
    print(f"\n{checked} aws-sdk integrations in the state machines")


# --- the checker itself ------------------------------------------------------------------------------


def test_the_checker_refuses_a_misspelled_parameter_and_an_operation_botocore_lacks() -> None:
    found = check(
        "def create(name):\n"
        "    client('sagemaker', 'us-west-2').create_cluster(ClusterName=name, NodeProvisioningModes='Continuous')\n"
        "    client('sagemaker').batch_reboot_cluster_nodez(ClusterName=name, NodeIds=['i-1'])\n"
    )

    assert [finding.message for finding in found.findings] == [
        "CreateCluster has no parameter NodeProvisioningModes",
        "sagemaker has no operation batch_reboot_cluster_nodez in botocore",
    ]


def test_the_checker_follows_literals_through_names_helpers_and_paginators_into_nested_shapes() -> None:
    found = check(
        "def _group(name):\n"
        "    spec = {'InstanceGroupName': name, 'InstanceCount': 1}\n"
        "    spec['CapacityRequirement'] = {'Spot': {}}\n"
        "    return spec\n"
        "class Gateway:\n"
        "    @property\n"
        "    def _sagemaker(self):\n"
        "        return client('sagemaker')\n"
        "    def create(self, name):\n"
        "        request = {'ClusterName': name, 'InstanceGroups': [_group(g) for g in ('a', 'b')]}\n"
        "        request['NodeRecovery'] = 'Sometimes'\n"
        "        self._sagemaker.create_cluster(**request)\n"
        "    def nodes(self, name):\n"
        "        pages = self._sagemaker.get_paginator('list_cluster_nodes')\n"
        "        return pages.paginate(ClusterName=name, SortOrdr='Ascending')\n"
    )

    assert [finding.message for finding in found.findings] == [
        "CreateCluster.InstanceGroups[] (ClusterInstanceGroupSpecification) has no member CapacityRequirement",
        "CreateCluster.NodeRecovery must be one of ['Automatic', 'None'], not 'Sometimes'",
        "ListClusterNodes has no parameter SortOrdr",
    ]
    assert len(found.call_sites) == 2


def test_the_checker_reports_a_client_use_it_cannot_follow() -> None:
    found = check("def odd(items):\n    s3 = client('s3')\n    return list(map(s3.head_bucket, items))\n")

    assert found.unresolved == ["adapter:4 s3.head_bucket"]  # line 1 is the import the helper adds


def _boto3_version() -> str:
    import boto3

    return str(boto3.__version__)
