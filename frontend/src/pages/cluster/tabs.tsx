/**
 * The cluster detail page's tabs after Overview (instance groups, nodes, storage, software, features), each its
 * own chunk. The active tab is the URL's `?tab=` so every tab is a permalink.
 */
import type { ComponentType, LazyExoticComponent } from "react";
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

export const CLUSTER_TABS: ClusterTab[] = [];
