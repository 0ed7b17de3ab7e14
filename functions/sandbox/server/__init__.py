"""The sandbox's HTTP front door: what API Gateway, the console's CDN and the EKS endpoints are in AWS.

`app` puts the routes together: `/api/*` (`rest`) becomes an API Gateway REST proxy event for the real API handler
(the sandbox plays the Cognito authorizer with fixed tokens, and SigV4 for its MCP server's identity) and the
handler's result becomes the HTTP response, every header kept; a body that is not UTF-8 is refused (400) as API
Gateway would. `/mcp` is the MCP server acting for the user of each sandbox token; it calls `/api` with a token made
when the app is built and known only to this process, so no other local caller can act as the MCP server (and name
any user with any role). `/k8s/<cluster>` is each cluster's Kubernetes API; `/ws` (`websocket`) is the WebSocket
API (each frame an API Gateway WebSocket event for the real `ws` handler; the sandbox plays the `$connect`
authorizer with the same tokens, passed as the `token` query parameter, and `sandbox.aws.websocket` delivers the
management API's posts to the socket); `/sandbox/*` (`controls`) holds the controls (faults, quotas). Every other
GET path is the web console (`console`: the built `frontend/dist`, as CloudFront serves it: assets by name, any
other path its `index.html`), with a `config.json` whose sign-in is a choice of sandbox role.
"""
