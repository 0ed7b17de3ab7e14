"""moto's Step Functions interpreter, corrected and made cheap to run often.

- StopExecution right after StartExecution fails in moto, because the execution's worker has no environment yet:
  ``ExecutionWorker.stop`` waits for it (5 s at most).
- moto parses a state machine's definition (ANTLR, then a tree of evaluation components) at every execution's start
  and at every CreateStateMachine: a fifth of the CPU of a suite that runs workflows. Parsed trees are kept per
  definition for the process (every sandbox started in it provisions the same state machines). Reusing a tree is
  safe: an execution keeps its state in its own ``Environment``, and the one thing a component draws lazily, the heap
  key under which that environment keeps its retry counters, is drawn for every component before the tree is shared,
  so concurrent executions agree on it. (moto's Lambda client per Task state is left alone: one shared client left
  executions hanging now and then in the fault tests.)
"""

from __future__ import annotations

import threading
import time
from typing import Any

from moto.stepfunctions.parser.asl.component.eval_component import EvalComponent
from moto.stepfunctions.parser.asl.parse.asl_parser import AmazonStateLanguageParser
from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker

from sandbox.aws.patches import Patches

# Definitions whose parsed trees are kept (the project has a few dozen state machines; tests add a few more).
PARSED_DEFINITIONS = 256
_parse_unpatched = AmazonStateLanguageParser.parse
_parsed: dict[str, Any] = {}
_parsed_lock = threading.Lock()


def parse(definition: str) -> Any:
    """moto's parse of a definition, once per process."""
    with _parsed_lock:
        parsed = _parsed.get(definition)
        if parsed is None:
            parsed = _parse_unpatched(definition)
            draw_heap_keys(parsed[0])
            if len(_parsed) >= PARSED_DEFINITIONS:
                _parsed.pop(next(iter(_parsed)))
            _parsed[definition] = parsed
        return parsed


def draw_heap_keys(root: Any) -> int:
    """Draw the heap key of every evaluation component reachable from ``root``; how many there are."""
    seen: set[int] = set()
    stack = [root]
    components = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, EvalComponent):
            _ = obj.heap_key
            components += 1
        if isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif type(obj).__module__.startswith("moto.stepfunctions") and hasattr(obj, "__dict__"):
            stack.extend(vars(obj).values())
    return components


class StepFunctionsExtension:
    def __init__(self) -> None:
        self._patches = Patches()

    def install(self) -> None:
        stop_unpatched = ExecutionWorker.stop

        def stop(worker: ExecutionWorker, stop_date: Any, error: Any, cause: Any) -> None:
            deadline = time.monotonic() + 5
            while getattr(worker, "env", None) is None and time.monotonic() < deadline:
                time.sleep(0.01)
            stop_unpatched(worker, stop_date=stop_date, error=error, cause=cause)

        self._patches.replace(ExecutionWorker, "stop", stop)
        self._patches.replace(AmazonStateLanguageParser, "parse", staticmethod(parse))

    def uninstall(self) -> None:
        self._patches.restore()
