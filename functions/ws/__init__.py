"""WebSocket API entry points: the `$connect` authorizer, and the handler of the routes and of the log pushers."""
