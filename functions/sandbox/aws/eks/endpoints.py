"""Who can reach an EKS cluster's API endpoint from where the control plane runs.

The control plane's Lambda functions run outside any VPC, with no fixed egress address: they reach a cluster's API
only through its public endpoint, and only when the endpoint's `publicAccessCidrs` admit every address. A
private-only endpoint resolves to addresses inside the cluster's VPC, and a public one limited to other CIDRs drops
the connection: either way the client's connection times out (EKS user guide, "Cluster API server endpoint";
aws-facts §3.2). The sandbox gives such a cluster an endpoint name of its own, as EKS does, and fails every
connection to it the way a connect timeout does, at once (the client sees `ConnectTimeoutError`).
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from typing import Any

import urllib3.util.connection

from sandbox.aws.patches import Patches

ANY_ADDRESS = "0.0.0.0/0"


def reachable_from_outside(config: Mapping[str, Any]) -> bool:
    """A public endpoint that admits any address (EKS's defaults: public, `0.0.0.0/0`)."""
    return bool(config.get("endpointPublicAccess", True)) and ANY_ADDRESS in config.get("publicAccessCidrs", [])


def with_defaults(config: Mapping[str, Any]) -> dict[str, Any]:
    """`resourcesVpcConfig` as EKS reports it: endpoint access and public CIDRs filled with EKS's defaults."""
    public = bool(config.get("endpointPublicAccess", True))
    return {
        **config,
        "endpointPublicAccess": public,
        "endpointPrivateAccess": bool(config.get("endpointPrivateAccess", False)),
        "publicAccessCidrs": list(config.get("publicAccessCidrs") or ([ANY_ADDRESS] if public else [])),
    }


class UnreachableEndpoints:
    """Endpoint hosts the control plane cannot connect to; a connection to one times out."""

    def __init__(self) -> None:
        self._hosts: set[str] = set()
        self._patches = Patches()

    def add(self, host: str) -> None:
        self._hosts.add(host.lower())  # clients compare host names in lower case

    def install(self) -> None:
        original = urllib3.util.connection.create_connection
        hosts = self._hosts

        def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
            if address[0].lower() in hosts:
                raise TimeoutError(f"timed out connecting to {address[0]} (not reachable from outside its VPC)")
            return original(address, *args, **kwargs)

        self._patches.replace(urllib3.util.connection, "create_connection", create_connection)

    def uninstall(self) -> None:
        self._patches.restore()
