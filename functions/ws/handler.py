"""Lambda entry point of the WebSocket API's routes, and of the log pushers it starts.

Routes (`$request.body.action`): `$connect` records the connection of the caller the authorizer verified (its
context: `principal`, `role`), `$disconnect` forgets it, `subscribe` follows a job's log (or one pod's),
`unsubscribe` stops, `$default` answers an error frame. A request that cannot be served is answered with an
error frame on the connection (`{"type": "error", "code", "message"}`). An asynchronous invocation
`{"action": "push", "topic", "owner"}` is a log pusher (`LiveLogService.push`).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from controlplane import wiring
from controlplane.core.auth import Actor, Role
from controlplane.models.errors import DomainError
from controlplane.models.logstream import PUSH_ACTION, LogTopic, SubscribeMessage, UnsubscribeMessage
from controlplane.observability import logger

OK = {"statusCode": 200}


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    if event.get("action") == PUSH_ACTION:
        outcome = wiring.live_logs().push(str(event["topic"]), str(event["owner"]))
        logger().info("pusher done", extra={"topic": event["topic"], "outcome": outcome.value})
        return {"outcome": outcome.value}
    request = event["requestContext"]
    route, connection_id = request["routeKey"], request["connectionId"]
    if route == "$connect":
        return _connect(connection_id, request.get("authorizer") or {})
    if route == "$disconnect":
        wiring.live_logs().disconnect(connection_id)
        return OK
    try:
        if route == "subscribe":
            message = SubscribeMessage.model_validate_json(event.get("body") or "{}")
            wiring.live_logs().subscribe(connection_id, LogTopic(**message.model_dump(exclude={"action"})))
        elif route == "unsubscribe":
            UnsubscribeMessage.model_validate_json(event.get("body") or "{}")
            wiring.live_logs().unsubscribe(connection_id)
        else:
            _refuse(connection_id, "InvalidRequest", 'Send {"action": "subscribe", ...} or {"action": "unsubscribe"}.')
    except ValidationError as error:
        _refuse(connection_id, "InvalidRequest", _first_problem(error))
    except DomainError as error:
        _refuse(connection_id, error.code, error.message)
    return OK


def _connect(connection_id: str, authorizer: dict[str, Any]) -> dict[str, Any]:
    """The authorizer verified the caller; without its context (or a role) the connection is refused."""
    role = Role.parse(str(authorizer.get("role") or ""))
    principal = str(authorizer.get("principal") or "")
    if role is None or not principal:
        return {"statusCode": 401}
    wiring.live_logs().connect(connection_id, Actor(principal=principal, role=role, source="cognito"))
    return OK


def _refuse(connection_id: str, code: str, message: str) -> None:
    logger().info("websocket request refused", extra={"code": code})
    wiring.live_logs().refuse(connection_id, code, message)


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "body"
    return (
        f"{where}: {problem['msg']}. Send "
        '{"action": "subscribe", "clusterTag": "demo", "jobName": "llama", "pod": "<optional pod name>"}.'
    )
