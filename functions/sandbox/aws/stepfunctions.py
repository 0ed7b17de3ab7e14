"""moto's Step Functions interpreter, corrected and made cheap to run often.

- StopExecution right after StartExecution fails in moto, because the execution's worker has no environment yet:
  ``ExecutionWorker.stop`` waits for it (5 s at most).
- A ``TimeoutSecondsPath`` that selects zero, a negative number or no integer at all is accepted (its check is
  inverted). AWS requires a positive integer; moto timed such a task out at once, while its Lambda call still ran
  on another thread, which then recorded the state's whole input as the task's timeout and broke every later
  GetExecutionHistory of the execution. Such a value now fails the state with ``States.Runtime``, as on AWS.
- moto parses a state machine's definition (ANTLR, then a tree of evaluation components) at every execution's start
  and at every CreateStateMachine: a fifth of the CPU of a suite that runs workflows. Parsed trees are kept per
  definition for the process (every sandbox started in it provisions the same state machines). Reusing a tree is
  safe: an execution keeps its state in its own ``Environment``, and no component of the state types the project
  uses writes to itself while it evaluates, except for the heap key under which the environment keeps the
  component's retry counters, drawn lazily: it is drawn for every component before the tree is shared, so
  concurrent executions agree on it.
- moto builds a new boto3 client (loading the service's model from disk) for every Lambda task it runs: a twentieth
  of a workflow suite's CPU. One client per Region and service is built while the extension is installed (clients are
  safe to share between threads; moto's are all the same: fixed keys and settings).
- moto parses each JSONPath of a state (``$.cluster.name``) at every evaluation, and jsonpath-ng builds a new
  parser (its grammar tables) for every parse. Parsed paths are kept per path for the process: a parsed path is
  only read when it selects.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Any

from moto.stepfunctions.parser.api import ExecutionFailedEventDetails, HistoryEventType
from moto.stepfunctions.parser.asl.component.common.error_name.failure_event import (
    FailureEvent,
    FailureEventException,
)
from moto.stepfunctions.parser.asl.component.common.error_name.states_error_name import StatesErrorName
from moto.stepfunctions.parser.asl.component.common.error_name.states_error_name_type import StatesErrorNameType
from moto.stepfunctions.parser.asl.component.common.timeouts.timeout import TimeoutSecondsPath
from moto.stepfunctions.parser.asl.component.eval_component import EvalComponent
from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils
from moto.stepfunctions.parser.asl.eval.environment import Environment
from moto.stepfunctions.parser.asl.eval.event.event_detail import EventDetails
from moto.stepfunctions.parser.asl.parse.asl_parser import AmazonStateLanguageParser
from moto.stepfunctions.parser.asl.utils import json_path
from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker

from sandbox.aws.patches import Patches

# Definitions whose parsed trees are kept (the project has a few dozen state machines; tests add a few more).
PARSED_DEFINITIONS = 256
_parse_unpatched = AmazonStateLanguageParser.parse
_parsed: dict[str, Any] = {}
_parsed_lock = threading.Lock()
_parse_json_path_unpatched = json_path.parse


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


@functools.lru_cache(maxsize=4096)
def parse_json_path(path: str) -> Any:
    """jsonpath-ng's parse of one path (as moto calls it), once per process."""
    return _parse_json_path_unpatched(path)


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


def invalid_timeout(env: Environment, path: str, seconds: Any) -> FailureEventException:
    cause = f"The value of the field 'TimeoutSecondsPath' ({path}) must be a positive integer, but it is {seconds!r}"
    return FailureEventException(
        failure_event=FailureEvent(
            env=env,
            error_name=StatesErrorName(typ=StatesErrorNameType.StatesRuntime),
            event_type=HistoryEventType.ExecutionFailed,
            # moto declares EventDetails total and builds it, as here, with the one detail an event carries.
            event_details=EventDetails(  # type: ignore[typeddict-item]
                executionFailedEventDetails=ExecutionFailedEventDetails(
                    error=StatesErrorNameType.StatesRuntime.to_name(), cause=cause
                )
            ),
        )
    )


def lambda_client_for(build: Callable[..., Any]) -> Callable[..., Any]:
    """moto's ``boto_client_for`` for its Lambda tasks, building one client per Region and service."""
    clients: dict[tuple[str, str], Any] = {}
    lock = threading.Lock()

    def client_for(region: str, service: str, state_credentials: Any = None) -> Any:
        with lock:
            if (region, service) not in clients:
                clients[region, service] = build(region=region, service=service, state_credentials=state_credentials)
            return clients[region, service]

    return client_for


class StepFunctionsExtension:
    def __init__(self) -> None:
        self._patches = Patches()

    def install(self) -> None:
        stop_unpatched = ExecutionWorker.stop
        timeout_unpatched = TimeoutSecondsPath._eval_seconds

        def stop(worker: ExecutionWorker, stop_date: Any, error: Any, cause: Any) -> None:
            deadline = time.monotonic() + 5
            while getattr(worker, "env", None) is None and time.monotonic() < deadline:
                time.sleep(0.01)
            stop_unpatched(worker, stop_date=stop_date, error=error, cause=cause)

        def timeout_from_path(timeout: TimeoutSecondsPath, env: Environment) -> int:
            seconds = timeout_unpatched(timeout, env)
            if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
                raise invalid_timeout(env, timeout.string_sampler.literal_value, seconds)
            return seconds

        self._patches.replace(ExecutionWorker, "stop", stop)
        self._patches.replace(TimeoutSecondsPath, "_eval_seconds", timeout_from_path)
        self._patches.replace(AmazonStateLanguageParser, "parse", staticmethod(parse))
        self._patches.replace(json_path, "parse", parse_json_path)
        shared_clients = lambda_client_for(lambda_eval_utils.boto_client_for)
        self._patches.replace(lambda_eval_utils, "boto_client_for", shared_clients)

    def uninstall(self) -> None:
        self._patches.restore()
