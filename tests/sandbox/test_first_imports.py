"""The sandbox runs every function's invocations at once in one process: the Kubernetes client's first use in two
handlers at once must not fail (found by the soak: "Ensure Access Entry" of two clusters failed with ImportError)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# In a fresh process (the package not imported yet): a started sandbox, then two handlers' first Kubernetes imports at
# once, the second begun while the first is initializing the package (the order that deadlocks, every time).
RACE = textwrap.dedent(
    """
    import sys, threading
    from sandbox.runtime import Sandbox, SandboxOptions

    sandbox = Sandbox(SandboxOptions(kubernetes_url="http://127.0.0.1:9/k8s"))
    sandbox.start()
    errors = []

    def apply():
        try:
            from kubernetes.client.exceptions import ApiException
            from kubernetes.dynamic import DynamicClient
        except ImportError as error:
            errors.append(str(error))

    def get():
        while "kubernetes" not in sys.modules:
            pass
        try:
            from kubernetes.dynamic import DynamicClient
        except ImportError as error:
            errors.append(str(error))

    threads = [threading.Thread(target=get), threading.Thread(target=apply)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sandbox.stop()
    print(errors)
    """
)


def test_two_handlers_first_using_the_kubernetes_client_at_once_both_import_it():
    ran = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=120, check=True)
    assert ran.stdout.strip().splitlines()[-1] == "[]", ran.stdout
