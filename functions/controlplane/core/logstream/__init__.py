"""Live logs: WebSocket connections that follow a job's log, and the pusher that fans its new lines out to them."""
