"""Ports: what the core needs from the outside world, as Protocols that adapters implement, one module per
system. Value types returned by gateways live beside their gateway; they are plain dataclasses, not SDK shapes."""
