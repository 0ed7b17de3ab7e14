"""The sandbox console's config.json names the WebSocket API only when the server can speak WebSocket."""

from __future__ import annotations

import importlib.util

from sandbox.server import console


def test_ws_base_is_named_when_a_websocket_implementation_is_installed(monkeypatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object() if name == "wsproto" else None)
    assert console.live_console_config()["wsBase"] == "/ws"


def test_without_one_the_console_polls(monkeypatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert "wsBase" not in console.live_console_config()
    assert console.live_console_config()["apiBase"] == "/api"
