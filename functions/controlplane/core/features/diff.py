"""The explicit diff of a features PATCH: each touched feature against its live state.

Absent means unchanged (only touched features are diffed); a touched feature whose live state already matches
is `none` → `unchanged`. Disabling runs before enabling, each in the declared order. Not here: whether a change
is allowed (`core.features.rules`).
"""

from __future__ import annotations

from controlplane.core.features import DISABLE_ORDER, ENABLE_ORDER
from controlplane.models.features import (
    Feature,
    FeatureChange,
    FeatureRequest,
    FeatureState,
    KarpenterFeature,
    Outcome,
    TieredStorageFeature,
)

NO_CHANGE = FeatureChange()
OUTCOMES: dict[str, Outcome] = {"none": "unchanged", "enable": "enabled", "disable": "disabled", "update": "updated"}


def change_of(wanted: FeatureRequest, live: FeatureState) -> FeatureChange:
    """What the workflow must do to take one feature from its live state to the requested one."""
    if not wanted.enabled:
        return FeatureChange(change="none" if live.state == "disabled" else "disable")
    if isinstance(wanted, TieredStorageFeature):
        current = live.settings.get("percentage")
        percentage = (
            None
            if wanted.configMode == "default"
            else wanted.percentage
            if wanted.percentage is not None
            else current
            if isinstance(current, int)
            else None
        )
        if live.state != "enabled":
            return FeatureChange(change="enable", percentage=percentage)
        return FeatureChange(change="none" if percentage == current else "update", percentage=percentage)
    if isinstance(wanted, KarpenterFeature):
        live_groups = live.settings.get("instanceGroups")
        current = live_groups if isinstance(live_groups, list) else None
        groups = wanted.instanceGroups or current
        if live.state != "enabled":
            return FeatureChange(change="enable", instanceGroups=groups)
        unchanged = sorted(groups or []) == sorted(current or [])
        return FeatureChange(change="none" if unchanged else "update", instanceGroups=groups)
    return FeatureChange(change="none" if live.state == "enabled" else "enable")


def outcome_of(change: FeatureChange) -> Outcome:
    return OUTCOMES[change.change]


def stages_of(changes: dict[Feature, FeatureChange]) -> list[Feature]:
    """The features the operation changes, in execution order: disables (reverse order), then enables and updates."""
    return [f for f in DISABLE_ORDER if changes.get(f, NO_CHANGE).change == "disable"] + [
        f for f in ENABLE_ORDER if changes.get(f, NO_CHANGE).change in ("enable", "update")
    ]


def detail_of(change: FeatureChange) -> str | None:
    """The setting a planned action carries, as a person reads it."""
    if change.percentage is not None:
        return f"InstanceMemoryAllocationPercentage {change.percentage}"
    if change.instanceGroups:
        return f"instance groups {', '.join(change.instanceGroups)}"
    return None
