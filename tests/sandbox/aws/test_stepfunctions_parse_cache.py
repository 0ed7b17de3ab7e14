"""A state machine's definition is parsed once per process and its tree shared by executions: every component's
heap key (where an execution's Environment keeps its retry counters) is drawn before the tree is shared."""

from __future__ import annotations

import gc
import json
from pathlib import Path

from moto.stepfunctions.parser.asl.component.common.retry.max_attempts_decl import MaxAttemptsDecl
from moto.stepfunctions.parser.asl.component.eval_component import EvalComponent

from sandbox.aws.stepfunctions import draw_heap_keys, parse

DEFINITION = (Path(__file__).parents[3] / "statemachines" / "create_eks_cluster.asl.json").read_text()


def components(root: object) -> list[EvalComponent]:
    """Every evaluation component reachable from ``root``, found by the garbage collector's referents (a walk of
    its own, not the one under test)."""
    found: dict[int, EvalComponent] = {}
    pending = [root]
    visited: set[int] = set()
    while pending:
        obj = pending.pop()
        if id(obj) in visited or isinstance(obj, type) or not type(obj).__module__.startswith(("moto.", "builtins")):
            continue
        visited.add(id(obj))
        if isinstance(obj, EvalComponent):
            found[id(obj)] = obj
        pending.extend(gc.get_referents(obj))
    return list(found.values())


def test_a_definition_is_parsed_once_and_every_heap_key_is_drawn_before_it_is_shared():
    program, _ = parse(DEFINITION)
    assert parse(DEFINITION)[0] is program
    found = components(program)
    assert any(isinstance(component, MaxAttemptsDecl) for component in found), "the walk reaches the retriers"
    assert all(component.__dict__.get("_EvalComponent__heap_key") for component in found)
    assert draw_heap_keys(program) == len(found)


def test_a_different_definition_is_parsed_on_its_own():
    other = json.dumps({**json.loads(DEFINITION), "Comment": "another machine"})
    assert parse(other)[0] is not parse(DEFINITION)[0]


def test_a_json_path_is_parsed_once_while_installed_and_selects_as_moto_does():
    from moto.stepfunctions.parser.asl.utils import json_path

    from sandbox.aws.stepfunctions import StepFunctionsExtension

    data = {"cluster": {"name": "demo", "groups": [{"name": "gpu"}, {"name": "cpu"}]}}
    paths = ["$.cluster.name", "$.cluster.groups[1].name", "$.cluster.groups[*].name", "$"]
    unpatched = json_path.parse
    expected = [json_path.extract_json(path, data) for path in paths]
    extension = StepFunctionsExtension()
    extension.install()
    try:
        assert [json_path.extract_json(path, data) for path in paths] == expected
        assert json_path.parse("$.cluster.name") is json_path.parse("$.cluster.name")
    finally:
        extension.uninstall()
    assert json_path.parse is unpatched
    assert json_path.parse("$.cluster.name") is not json_path.parse("$.cluster.name")
