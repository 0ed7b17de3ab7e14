"""Label and field selectors, parsed and matched without a server."""

import pytest

from sandbox.k8s.kinds import BUILTIN_KINDS
from sandbox.k8s.selectors import parse_field_selector, parse_label_selector

PODS = BUILTIN_KINDS[("", "v1", "pods")]
CONFIG_MAPS = BUILTIN_KINDS[("", "v1", "configmaps")]
LABELS = {
    "a": {"app": "web", "tier": "front"},
    "b": {"app": "web", "tier": "back"},
    "c": {"app": "db"},
}


def selected(selector: str) -> list[str]:
    requirements = parse_label_selector(selector)
    return [name for name, labels in LABELS.items() if all(r.matches(labels) for r in requirements)]


@pytest.mark.parametrize(
    ("selector", "names"),
    [
        ("", ["a", "b", "c"]),
        ("app=web", ["a", "b"]),
        ("app==web,tier!=front", ["b"]),
        ("tier", ["a", "b"]),
        ("!tier", ["c"]),
        ("app in (db, cache)", ["c"]),
        ("tier notin (back),app", ["a", "c"]),
        ("tier notin (back)", ["a", "c"]),
    ],
)
def test_label_selectors_match_equality_set_and_existence_requirements(selector: str, names: list[str]) -> None:
    assert selected(selector) == names


@pytest.mark.parametrize("selector", ["app=(web", "in (a)", "a b c"])
def test_a_malformed_label_selector_is_a_value_error(selector: str) -> None:
    with pytest.raises(ValueError, match="unable to parse"):
        parse_label_selector(selector)


def test_field_selectors_compare_nested_fields_as_strings() -> None:
    running = {
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"nodeName": "n1"},
        "status": {"phase": "Running"},
    }
    pending = {"metadata": {"name": "q", "namespace": "default"}, "spec": {}, "status": {"phase": "Pending"}}

    def matching(selector: str) -> list[str]:
        requirements = parse_field_selector(selector, PODS)
        return [pod["metadata"]["name"] for pod in (running, pending) if all(r.matches(pod) for r in requirements)]

    assert matching("status.phase=Running") == ["p"]
    assert matching("status.phase!=Running,metadata.namespace=default") == ["q"]
    assert matching("spec.nodeName==n1") == ["p"]
    assert matching("spec.nodeName=") == ["q"]


def test_a_field_the_kind_does_not_index_is_refused() -> None:
    assert parse_field_selector("metadata.name=x", CONFIG_MAPS)[0].path == ("metadata", "name")
    with pytest.raises(ValueError, match="not supported"):
        parse_field_selector("data.key=value", CONFIG_MAPS)
    with pytest.raises(ValueError, match="invalid field selector"):
        parse_field_selector("status.phase", PODS)
