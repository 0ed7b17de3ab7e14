"""InstantStart control plane: the shared library behind every entry point (REST, steps, events)."""
