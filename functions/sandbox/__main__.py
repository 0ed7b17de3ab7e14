"""`python -m sandbox` (what `make run` starts): the whole control plane on one local port."""

from __future__ import annotations

import os

import uvicorn

from sandbox.runtime import TOKENS, Sandbox, SandboxOptions
from sandbox.server.app import build_app


def main() -> None:
    port = int(os.environ.get("PORT", "8000"))
    base = f"http://127.0.0.1:{port}"
    sandbox = Sandbox(SandboxOptions(kubernetes_url=f"{base}/k8s"))
    sandbox.start()
    print(f"InstantStart sandbox: {base}  (API {base}/api, docs {base}/api/docs)")
    print("Bearer tokens: " + ", ".join(f"{token} ({role})" for token, role in TOKENS.items()))
    print("State is in memory only. Ctrl-C stops.", flush=True)
    try:
        uvicorn.run(build_app(sandbox), host="127.0.0.1", port=port, log_level="warning")
    finally:
        sandbox.stop()


if __name__ == "__main__":
    main()
