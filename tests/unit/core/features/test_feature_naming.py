"""The features' deterministic names, tags and labels (core.naming)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from controlplane.core.naming import (
    feature_labels,
    feature_tags,
    fsx_csi_role_name,
    inference_operator_role_name,
    inference_tls_bucket_name,
    is_owned,
    karpenter_role_name,
    observability_role_name,
    tiered_storage_policy_name,
    tiered_storage_role_name,
)
from controlplane.models.features import Feature
from tests.fakes.deployment import DEPLOYMENT

LONGEST_TAG = "a" + "-" * 19 + "z"  # clusterTag is ^[a-z][a-z0-9-]{2,20}$
ROLE_NAMES = {
    fsx_csi_role_name: "instantstart-demo-fsx-csi",
    observability_role_name: "instantstart-demo-observability",
    inference_operator_role_name: "instantstart-demo-inference",
    karpenter_role_name: "instantstart-demo-karpenter",
    tiered_storage_role_name: "instantstart-demo-tiered-ckpt",
    tiered_storage_policy_name: "instantstart-demo-tiered-ckpt",
}


@pytest.mark.parametrize(("name", "expected"), ROLE_NAMES.items())
def test_iam_names_are_derived_from_the_cluster_tag_and_fit_iams_limit(name, expected):
    assert name(DEPLOYMENT, "demo") == expected
    longest = replace(DEPLOYMENT, name="a" * 12)  # DEPLOYMENT_NAME_PATTERN allows 12 characters
    assert len(name(longest, LONGEST_TAG)) <= 64


def test_the_tls_bucket_name_starts_as_the_inference_policy_expects_and_is_a_valid_bucket_name():
    name = inference_tls_bucket_name("demo", "123456789012", "us-west-2")
    assert name == "hyperpod-tls-demo-123456789012-us-west-2"
    longest = inference_tls_bucket_name(LONGEST_TAG, "123456789012", "ap-southeast-2")
    assert len(longest) <= 63 and re.fullmatch(r"[a-z0-9][a-z0-9.-]+[a-z0-9]", longest)


def test_feature_tags_are_the_ownership_tags_plus_the_feature():
    tags = feature_tags(DEPLOYMENT, "demo", Feature.KARPENTER)
    assert tags["instantstart:feature"] == "karpenter"
    assert is_owned(DEPLOYMENT, tags, "demo") and not is_owned(DEPLOYMENT, tags, "other")


def test_feature_labels_are_valid_kubernetes_labels_naming_the_feature():
    labels = feature_labels(Feature.TIERED_STORAGE)
    assert labels == {"app.kubernetes.io/managed-by": "instantstart", "instantstart.aws/feature": "tieredStorage"}
    assert all(":" not in key for key in labels)
