"""Where HyperPod's training operator runs: the namespace and service account its Pod Identity role is for.

Stage 4 creates the association (`core.hyperpod.stage`); the import adopts it and the training-operator feature
checks it. The roles' AWS managed policies are `core.identity`'s, beside the other managed policies the control
plane's roles are made for.
"""

from __future__ import annotations

TRAINING_OPERATOR_NAMESPACE = "aws-hyperpod"
TRAINING_OPERATOR_SERVICE_ACCOUNT = "hp-training-operator-controller-manager"
