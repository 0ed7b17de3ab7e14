/** The cluster's instance groups, read by the instance groups and software tabs. */
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { allPages, useResource } from "../../hooks/useResource";

/** Every instance group of the cluster (all pages of `continue`). */
export function useInstanceGroups(clusterTag: string) {
  const { api } = useApp();
  return useResource(
    (signal) =>
      allPages<Schemas["InstanceGroupView"]>(async (next) => {
        const page = await unwrap(
          api.GET("/clusters/{clusterTag}/instance-groups", {
            params: { path: { clusterTag }, query: { limit: 100, continue: next } },
            signal,
          }),
        );
        return { items: page.instanceGroups, next: page.continue };
      }),
    [api, clusterTag],
  );
}
