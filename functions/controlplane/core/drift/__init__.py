"""Drift: what the control plane recorded and owns, compared with live state, reported per field path.

- `recorded`: the desired state replayed from the cluster's succeeded operations (groups, features, add-ons);
- `compare`: recorded against live, one finding per managed field (fields the control plane does not manage are
  never drift);
- `stuck`: operations RUNNING past their kind's deadline, with the call that resumes them;
- `service`: one reconcile of a cluster (`DriftService.check`), the last report, and every registered cluster.
Not here: the cost view (`core.cost`).
"""
