"""The WebSocket API's management endpoint in the sandbox: a post to a connection (moto's
`apigatewaymanagementapi`, reached by the real adapter) is delivered to the socket open at `/ws`, and a post to a
connection that is not open fails with 410 GoneException, as API Gateway answers (moto never does).

`sandbox.server.websocket` opens and closes the sockets here; frames cross from the posting thread (a request, a
pusher) to the socket's event loop.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

from moto.apigatewaymanagementapi.models import ApiGatewayManagementApiBackend
from moto.core.exceptions import JsonRESTError

from sandbox.aws.patches import Patches

API_ID = "sandbox"
STAGE = "v1"
MANAGEMENT_URL = f"https://{API_ID}.execute-api.us-east-1.amazonaws.com/{STAGE}"


class GoneError(JsonRESTError):
    code = 410

    def __init__(self, connection_id: str) -> None:
        super().__init__("GoneException", f"Connection {connection_id} is gone")


@dataclass(frozen=True)
class _Socket:
    loop: asyncio.AbstractEventLoop
    frames: asyncio.Queue[str]


class WebSocketConnections:
    """The open sockets by connection id, and the management API that posts to them."""

    def __init__(self) -> None:
        self._sockets: dict[str, _Socket] = {}
        self._lock = threading.Lock()
        self._patches = Patches()

    def open(self, connection_id: str) -> asyncio.Queue[str]:
        """Register the socket of `connection_id` (called on its event loop); its frames arrive on the queue."""
        frames: asyncio.Queue[str] = asyncio.Queue()
        with self._lock:
            self._sockets[connection_id] = _Socket(asyncio.get_running_loop(), frames)
        return frames

    def close(self, connection_id: str) -> None:
        with self._lock:
            self._sockets.pop(connection_id, None)

    def post(self, connection_id: str, data: bytes) -> None:
        with self._lock:
            socket = self._sockets.get(connection_id)
        if socket is None:
            raise GoneError(connection_id)
        socket.loop.call_soon_threadsafe(socket.frames.put_nowait, data.decode())

    def install(self) -> None:
        connections = self

        def post_to_connection(backend: ApiGatewayManagementApiBackend, data: bytes, connection_id: str) -> None:
            connections.post(connection_id, data)

        self._patches.replace(ApiGatewayManagementApiBackend, "post_to_connection", post_to_connection)

    def uninstall(self) -> None:
        self._patches.restore()
