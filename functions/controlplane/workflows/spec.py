"""The building blocks a workflow is declared with, and what a declaration tells without generating ASL.

A workflow is a sequence of blocks:
- `Task(step)`: one Lambda step, declared under its name in `steps/` (the steps table refuses to load without it);
- `Poll(step, choice, wait)`: Task → Choice (`$.poll.done`?) → Wait (`SecondsPath`) → Task, then a Pass that
  clears `$.poll` so the next loop counts its own checks and deadline. The check step computes the wait and
  enforces the deadline (`core.polling`). With a `topic` (a HyperPod wait), the Wait is a task-token Task that an
  event of that topic ends early (`core.events.waits`), timing out after the same wait into the same check;
- `Branch(choice, rule, comment, *body)`: a Choice that runs `body` only when `rule` holds, else skips it;
- `Stage(name, *body)`: the operation stage the body's steps report (the outermost Stage around a step wins,
  so a pipeline can wrap a stage workflow's body in a stage of its own).
Every workflow ends with `Record Operation Success`; every Task's failure goes to `Record Operation Failure`
(both added by the generator, `asl.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from controlplane.models.operations import OperationKind

# The steps the generator adds: every workflow's outcome, and the task-token wait of an event-ended poll loop.
RECORD_SUCCESS = "Record Operation Success"
RECORD_FAILURE = "Record Operation Failure"
AWAIT_EVENT = "Await HyperPod Event"

Rule = Mapping[str, Any]
"""An ASL Choice rule without its `Next`, e.g. `{"Variable": "$.storage.fsx", "IsPresent": True}`."""


@dataclass(frozen=True)
class Task:
    """One step. `name` is the state's name when it differs from the step's (a step used twice in a workflow);
    `constants` are passed in the payload beside the state (e.g. `{"stage": "eks"}`). A step's output is dropped,
    unless `keep` names the state field its output's fields `kept` are kept in, for the steps after it."""

    step: str
    name: str = ""
    constants: Mapping[str, str] = field(default_factory=dict)
    keep: str = ""
    kept: tuple[str, ...] = ()

    @property
    def state(self) -> str:
        return self.name or self.step


@dataclass(frozen=True)
class Poll:
    """A step run until it reports `done`, waiting `waitSeconds` between rounds. `done` names the closing Pass.
    `topic` ("cluster" or "nodes"): the HyperPod events that end a wait early (completion by event)."""

    step: str
    choice: str
    wait: str
    done: str = ""
    topic: str = ""

    @property
    def state(self) -> str:
        return self.step

    @property
    def done_state(self) -> str:
        return self.done or f"{self.step} Done"


class Branch:
    """A conditional segment: `choice` runs `body` when `rule` holds and skips to what follows otherwise."""

    def __init__(self, choice: str, rule: Rule, comment: str, *body: Block) -> None:
        self.choice = choice
        self.rule = rule
        self.comment = comment
        self.body = body


class Stage:
    """The operation stage that the steps in `body` report."""

    def __init__(self, name: str, *body: Block) -> None:
        self.name = name
        self.body = body


Block = Task | Poll | Branch | Stage


class Workflow:
    """One operation kind's workflow: its comment and its blocks, in order."""

    def __init__(self, kind: OperationKind, comment: str, *body: Block) -> None:
        self.kind = kind
        self.comment = comment
        self.body = body

    def tasks(self) -> Iterator[tuple[str | None, Task | Poll]]:
        """Every Task and poll loop with the stage it reports (None outside every stage), in order."""
        yield from _tasks(self.body, None)

    def steps(self) -> set[str]:
        """Every step the generated states invoke: the Tasks and poll checks, and the bookkeeping the generator adds
        (what the steps table must declare)."""
        steps = {RECORD_SUCCESS, RECORD_FAILURE}
        for _, task in self.tasks():
            steps.add(task.step)
            if isinstance(task, Poll) and task.topic:
                steps.add(AWAIT_EVENT)
        return steps

    def stages(self) -> dict[str, tuple[str, ...]]:
        """Each stage's Task states, stages and states in the order they first appear."""
        stages: dict[str, dict[str, None]] = {}
        for stage, task in self.tasks():
            if stage is not None:
                stages.setdefault(stage, {})[task.state] = None
        return {stage: tuple(states) for stage, states in stages.items()}


def is_present(path: str) -> Rule:
    return {"Variable": path, "IsPresent": True}


def string_equals(path: str, *values: str) -> Rule:
    """The field at `path` is one of `values`."""
    rules = [{"Variable": path, "StringEquals": value} for value in values]
    return rules[0] if len(rules) == 1 else {"Or": rules}


def _tasks(blocks: tuple[Block, ...], stage: str | None) -> Iterator[tuple[str | None, Task | Poll]]:
    for block in blocks:
        if isinstance(block, Task | Poll):
            yield stage, block
        elif isinstance(block, Branch):
            yield from _tasks(block.body, stage)
        else:
            yield from _tasks(block.body, stage or block.name)
