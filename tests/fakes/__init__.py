"""In-memory fakes of the core's ports for unit tests of the services: one module per port module of
`controlplane.core.ports`, each class named `InMemory<Port>` (or `Fake…`/`Recording…` where it plays a clock or
records calls). State is public so a test can arrange it and assert on it; behaviour follows the adapters
(found by ownership tags, "absent is fine" on delete, conditional writes)."""
