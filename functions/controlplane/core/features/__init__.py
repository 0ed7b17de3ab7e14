"""The Advanced Features context. Each feature is declared once: its public contract (name, label, description,
request shape) by its `Feature` member, the rest by its own module in `catalog` (what it builds and needs, its pin,
how it is ensured and removed); enabling runs in `Feature`'s order, disabling in reverse. The modules:
- `panel`: the features panel (`FeaturePanelService`: view, plan, update), built on `diff` (the explicit
  diff of a PATCH against live state) and `rules` (the dependency rules between features);
- `steps`: the workflow's entry points (`FeatureSteps`: ensure, remove, delete identities);
- `required`: what a request building on an add-on feature asks first (its add-on ACTIVE, else FeatureNotEnabled);
- `catalog`: one module per feature, and `CATALOG`, their declarations collected;
- shared building blocks: `declaration` (how a feature declares itself), `facts` (what every feature reads first,
  and the shape of a feature), `addon` (a feature that is an EKS add-on with its IAM role and bucket), `manifest`
  (a bundle of Kubernetes objects), `job_identity` (the training jobs' role, ServiceAccount and pod identity
  association, which the training operator builds beside its add-on).
Deterministic names (roles, policies, buckets, tags, labels) are in `core.naming`.
"""

from __future__ import annotations

from controlplane.models.features import Feature

ENABLE_ORDER = tuple(Feature)
DISABLE_ORDER = tuple(reversed(ENABLE_ORDER))
