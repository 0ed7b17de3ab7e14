"""operation_wait's cap against the MCP SDK client's defaults, at full scale: the arithmetic that tests/long, which
waits on a scaled clock, leaves to this module."""

from __future__ import annotations

import dataclasses

from mcp import Client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT

from controlplane.models.operations import MAX_WAIT_SECONDS as LONG_POLL_SECONDS
from mcp_server.tools import MAX_WAIT_SECONDS

FIVE_MINUTES = 300


def test_a_wait_that_runs_out_answers_before_the_sdk_client_stops_reading_on_either_transport():
    # A call repeats the API's long poll until its cap is spent: even a last poll begun just before the cap ends
    # within one more poll.
    longest_call = MAX_WAIT_SECONDS + LONG_POLL_SECONDS
    assert longest_call < MCP_DEFAULT_SSE_READ_TIMEOUT  # streamable HTTP: the SDK's HTTP client reads for 300 s
    (read_timeout,) = (field for field in dataclasses.fields(Client) if field.name == "read_timeout_seconds")
    assert read_timeout.default is None  # stdio: the SDK's client sets no read timeout


def test_an_agent_that_calls_again_whenever_a_wait_runs_out_makes_at_most_two_calls_in_five_minutes():
    # Each call but the last lasts the whole cap (tests/long measures it): at most this many begin in any window.
    calls_begun = FIVE_MINUTES // MAX_WAIT_SECONDS + 1
    assert calls_begun <= 2
