"""`python -m controlplane.workflows` (`make workflows`): rewrite statemachines/*.asl.json from the declarations."""

from __future__ import annotations

from controlplane.workflows import definition_path
from controlplane.workflows.asl import text
from controlplane.workflows.definitions import WORKFLOWS


def main() -> None:
    for kind, workflow in WORKFLOWS.items():
        path = definition_path(kind)
        generated = text(workflow)
        if not path.exists() or path.read_text() != generated:
            path.write_text(generated)
            print(f"wrote {path.name}")


if __name__ == "__main__":
    main()
