"""One router module per REST resource."""
