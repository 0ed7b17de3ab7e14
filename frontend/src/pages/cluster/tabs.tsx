/**
 * The cluster detail page's tabs after Overview (instance groups, nodes, storage, software, features, teams, events,
 * remediation, drift, cost), each its own chunk. The active tab is the URL's `?tab=` so every tab is a permalink.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from "react";
import type { Schemas } from "../../api/client";

export interface ClusterTabProps {
  cluster: Schemas["ClusterDetail"];
  /** Re-reads the cluster (after an action the tab started). */
  reload: () => void;
}

export interface ClusterTab {
  id: string;
  label: string;
  component: LazyExoticComponent<ComponentType<ClusterTabProps>>;
}

export const CLUSTER_TABS: ClusterTab[] = [
  { id: "instance-groups", label: "Instance groups", component: lazy(() => import("./InstanceGroupsTab")) },
  { id: "nodes", label: "Nodes", component: lazy(() => import("./NodesTab")) },
  { id: "storage", label: "Storage", component: lazy(() => import("./StorageTab")) },
  { id: "software", label: "Software", component: lazy(() => import("./SoftwareTab")) },
  { id: "features", label: "Features", component: lazy(() => import("./FeaturesTab")) },
  { id: "teams", label: "Teams", component: lazy(() => import("./TeamsTab")) },
  { id: "events", label: "Events", component: lazy(() => import("./EventsTab")) },
  { id: "remediation", label: "Remediation", component: lazy(() => import("./RemediationTab")) },
  { id: "drift", label: "Drift", component: lazy(() => import("./DriftTab")) },
  { id: "cost", label: "Cost", component: lazy(() => import("./CostTab")) },
];
