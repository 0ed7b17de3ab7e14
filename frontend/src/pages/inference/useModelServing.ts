/** The Inference page's reads: deployments, model services, pool workers and managed endpoints (every page of
 * `continue`), each re-read every `POLL_MS` while something is still loading or changing, so a deploy is followed
 * until it is ready. */
import { useEffect } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { allPages, useResource, type Resource } from "../../hooks/useResource";

export const POLL_MS = 2000;

/** Re-read `resource` every `POLL_MS` while `busy` holds for its data. */
function usePolling<T>(resource: Resource<T>, busy: (data: T) => boolean): Resource<T> {
  const { data, reload } = resource;
  const waiting = data !== undefined && busy(data);
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [waiting, data, reload]);
  return resource;
}

export function useDeployments(clusterTag: string): Resource<Schemas["DeploymentSummary"][]> {
  const { api } = useApp();
  const deployments = useResource(
    (signal) =>
      allPages<Schemas["DeploymentSummary"]>(async (next) => {
        const page = await unwrap(
          api.GET("/clusters/{clusterTag}/deployments", { params: { path: { clusterTag }, query: { limit: 100, continue: next } }, signal }),
        );
        return { items: page.deployments, next: page.continue };
      }),
    [api, clusterTag],
  );
  return usePolling(deployments, (items) => items.some((item) => item.status === "Loading" || item.status === "Queued"));
}

export function useServices(clusterTag: string): Resource<Schemas["ModelService"][]> {
  const { api } = useApp();
  const services = useResource(
    (signal) =>
      allPages<Schemas["ModelService"]>(async (next) => {
        const page = await unwrap(
          api.GET("/clusters/{clusterTag}/services", { params: { path: { clusterTag }, query: { limit: 100, continue: next } }, signal }),
        );
        return { items: page.services, next: page.continue };
      }),
    [api, clusterTag],
  );
  return usePolling(services, (items) => items.some((item) => !item.ready));
}

export function usePool(clusterTag: string): Resource<Schemas["PoolWorker"][]> {
  const { api } = useApp();
  const workers = useResource(
    (signal) =>
      allPages<Schemas["PoolWorker"]>(async (next) => {
        const page = await unwrap(
          api.GET("/clusters/{clusterTag}/model-pool", { params: { path: { clusterTag }, query: { limit: 100, continue: next } }, signal }),
        );
        return { items: page.workers, next: page.continue };
      }),
    [api, clusterTag],
  );
  return usePolling(workers, (items) => items.some((item) => !item.ready));
}

/** Endpoint states that stay until someone acts: polling stops once every endpoint is in one. */
export const SETTLED_ENDPOINT_STATES: ReadonlySet<Schemas["EndpointState"]> = new Set<Schemas["EndpointState"]>([
  "DeploymentComplete",
  "DeploymentFailed",
  "DeletionFailed",
]);

export function useEndpoints(clusterTag: string): Resource<Schemas["EndpointSummary"][]> {
  const { api } = useApp();
  const endpoints = useResource(
    (signal) =>
      allPages<Schemas["EndpointSummary"]>(async (next) => {
        const page = await unwrap(
          api.GET("/clusters/{clusterTag}/endpoints", { params: { path: { clusterTag }, query: { limit: 100, continue: next } }, signal }),
        );
        return { items: page.endpoints, next: page.continue };
      }),
    [api, clusterTag],
  );
  return usePolling(endpoints, (items) => items.some((item) => !SETTLED_ENDPOINT_STATES.has(item.state)));
}
