"""`/ws`: API Gateway's WebSocket API around the real `ws` handler, with its `$connect` authorizer played by the
sandbox (the fixed tokens, as the `token` query parameter). A handshake from another site's page is refused first
(`origin`: the tokens are public, and WebSockets are not subject to CORS)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from sandbox.aws.websocket import API_ID
from sandbox.runtime import TOKENS, WS_FUNCTION, LambdaContext, Sandbox
from sandbox.server.origin import foreign_origin
from sandbox.server.rest import STAGE
from ws.handler import lambda_handler as ws_handler

# The WebSocket API's routes (`$request.body.action`); any other action is `$default`.
WS_ROUTES = frozenset({"subscribe", "unsubscribe"})


def ws_route(sandbox: Sandbox) -> Callable[[WebSocket], Awaitable[None]]:
    """`/ws?token=sandbox-viewer`: API Gateway's WebSocket API around the real `ws` handler."""

    async def invoke(event: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = await run_in_threadpool(
            ws_handler, event, LambdaContext(f"instantstart-{WS_FUNCTION}")
        )
        return result

    async def endpoint(websocket: WebSocket) -> None:
        origin = foreign_origin(websocket)
        if origin is not None:
            # A close reason fits a control frame: 123 bytes at most (RFC 6455 §5.5).
            await websocket.close(code=1008, reason=f"Origin {origin} is not the sandbox's own"[:123])
            return
        connection_id = uuid.uuid4().hex
        role = TOKENS.get(websocket.query_params.get("token", ""))
        # The authorizer: an unknown token never reaches $connect (API Gateway answers 401).
        if role is None:
            await websocket.close(code=1008, reason="Unauthorized")
            return
        authorizer = {"principal": websocket.query_params["token"], "role": role}
        frames = sandbox.websockets.open(connection_id)
        try:
            connected = await invoke(_ws_event("$connect", "CONNECT", connection_id, authorizer))
            if connected.get("statusCode") != 200:
                await websocket.close(code=1008, reason="Forbidden")
                return
            await websocket.accept()
            sender = asyncio.create_task(_send(websocket, frames))
            try:
                while True:
                    body = await websocket.receive_text()
                    await invoke(_ws_event(_route_of(body), "MESSAGE", connection_id, authorizer, body))
            except WebSocketDisconnect:
                pass
            finally:
                sender.cancel()
        finally:
            sandbox.websockets.close(connection_id)
            await invoke(_ws_event("$disconnect", "DISCONNECT", connection_id, authorizer))

    return endpoint


async def _send(websocket: WebSocket, frames: asyncio.Queue[str]) -> None:
    while True:
        await websocket.send_text(await frames.get())


def _route_of(body: str) -> str:
    try:
        action = json.loads(body).get("action")
    except (ValueError, AttributeError):
        return "$default"
    return action if action in WS_ROUTES else "$default"


def _ws_event(
    route: str, event_type: str, connection_id: str, authorizer: dict[str, str], body: str | None = None
) -> dict[str, Any]:
    """The API Gateway WebSocket event of a connect, a disconnect or a message."""
    return {
        "requestContext": {
            "routeKey": route,
            "eventType": event_type,
            "connectionId": connection_id,
            "apiId": API_ID,
            "stage": STAGE,
            "domainName": f"{API_ID}.execute-api.us-east-1.amazonaws.com",
            "requestId": str(uuid.uuid4()),
            "authorizer": authorizer,
        },
        "isBase64Encoded": False,
        **({"body": body} if body is not None else {}),
    }
