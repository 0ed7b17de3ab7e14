/**
 * Events tab: the HyperPod events recorded for the cluster (status changes, node health, Error-level cluster events)
 * and the remediation policy's decisions, newest first, a page at a time (`limit`/`continue`: "Load more"). With
 * `?node=` it is that node's history instead (`GET …/nodes/{nodeId}/history`); a node in the list links to it. Below,
 * the cluster's events, HyperPod's and Kubernetes' Warning events merged, with their filters (`HyperPodEventsPanel`).
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import Link from "@cloudscape-design/components/link";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator, { type StatusIndicatorProps } from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useCallback, useEffect, useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RouterLink } from "../../components/links";
import { HyperPodEventsPanel } from "./HyperPodEventsPanel";
import { useQueryParam } from "./query";
import type { ClusterTabProps } from "./tabs";

type EventRecord = Schemas["EventRecord"];

export const EVENTS_PAGE_SIZE = 50;

/** The recorded events of the cluster, or of one node, loaded a page at a time. */
function useEventPages(clusterTag: string, nodeId: string | null) {
  const { api } = useApp();
  const [events, setEvents] = useState<EventRecord[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();

  const load = useCallback(
    async (token: string | null, signal?: AbortSignal) => {
      setLoading(true);
      const query = { limit: EVENTS_PAGE_SIZE, ...(token ? { continue: token } : {}) };
      try {
        const page = nodeId
          ? await unwrap(api.GET("/clusters/{clusterTag}/nodes/{nodeId}/history", { params: { path: { clusterTag, nodeId }, query }, signal }))
          : await unwrap(api.GET("/clusters/{clusterTag}/events", { params: { path: { clusterTag }, query }, signal }));
        if (signal?.aborted) return;
        setEvents((current) => (token ? [...current, ...page.events] : page.events));
        setNext(page.continue ?? null);
        setError(undefined);
      } catch (reason: unknown) {
        if (!signal?.aborted) setError(reason);
      } finally {
        if (!signal?.aborted) setLoading(false);
      }
    },
    [api, clusterTag, nodeId],
  );

  useEffect(() => {
    const controller = new AbortController();
    void load(null, controller.signal);
    return () => controller.abort();
  }, [load]);

  return { events, next, loading, error, reload: () => void load(null), more: () => void load(next) };
}

export default function EventsTab({ cluster }: ClusterTabProps) {
  const clusterTag = cluster.clusterTag;
  const [nodeId, setNodeId] = useQueryParam("node");
  const pages = useEventPages(clusterTag, nodeId);

  return (
    <SpaceBetween size="m">
      <ErrorAlert error={pages.error} header={nodeId ? "The node's history could not be read" : "Events could not be listed"} />
      <Table
        loading={pages.loading && pages.events.length === 0}
        loadingText="Loading events"
        items={pages.events}
        trackBy={(event) => `${event.time}#${event.eventId}#${event.kind}`}
        wrapLines
        empty={<Box textAlign="center">{nodeId ? "No event of this node recorded." : "No HyperPod event recorded yet."}</Box>}
        header={
          <Header
            counter={`(${pages.events.length}${pages.next ? "+" : ""})`}
            description={
              nodeId
                ? "The node's health events and what the remediation policy did about each, newest first."
                : "HyperPod's status changes, node health and Error-level events, and the remediation policy's decisions, newest first."
            }
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                {nodeId && <Button onClick={() => setNodeId(null)}>All events</Button>}
                <Button iconName="refresh" ariaLabel="Refresh events" onClick={pages.reload} />
              </SpaceBetween>
            }
          >
            {nodeId ? `History of node ${nodeId}` : "Events"}
          </Header>
        }
        footer={
          pages.next ? (
            <Box textAlign="center">
              <Button loading={pages.loading} onClick={pages.more}>
                Load more
              </Button>
            </Box>
          ) : undefined
        }
        columnDefinitions={[
          { id: "time", header: "Time", cell: (event) => new Date(event.time).toLocaleString() },
          { id: "kind", header: "Kind", cell: (event) => KIND_LABELS[event.kind] },
          {
            id: "subject",
            header: "Subject",
            cell: (event) =>
              event.instanceId && !nodeId ? (
                <Link
                  href={`?tab=events&node=${encodeURIComponent(event.instanceId)}`}
                  ariaLabel={`History of ${event.instanceId}`}
                  onFollow={(follow) => {
                    follow.preventDefault();
                    setNodeId(event.instanceId ?? null);
                  }}
                >
                  {event.instanceId}
                </Link>
              ) : (
                (event.instanceId ?? event.instanceGroup ?? "cluster")
              ),
          },
          { id: "what", header: "What", cell: (event) => <What event={event} /> },
          { id: "description", header: "Detail", cell: (event) => event.description ?? "" },
          {
            id: "operation",
            header: "Operation",
            cell: (event) =>
              event.operationId ? <RouterLink href={`/operations/${event.operationId}`}>{event.operationId}</RouterLink> : "",
          },
        ]}
      />
      {!nodeId && <HyperPodEventsPanel clusterTag={clusterTag} />}
    </SpaceBetween>
  );
}

const KIND_LABELS: Record<EventRecord["kind"], string> = {
  ClusterStateChange: "Cluster status",
  NodeHealth: "Node health",
  ClusterEvent: "Cluster event",
  Remediation: "Remediation",
};

/** The fact an event states, or what the policy did, as a status. */
function What({ event }: { event: EventRecord }) {
  if (event.kind === "Remediation") {
    const type: StatusIndicatorProps.Type = event.outcome === "started" ? "success" : event.outcome === "would-start" ? "info" : "stopped";
    return <StatusIndicator type={type}>{`${event.action ?? ""}: ${event.outcome ?? ""}`}</StatusIndicator>;
  }
  if (event.kind === "NodeHealth") {
    const unhealthy = (event.healthStatus ?? "").toLowerCase() === "unhealthy";
    const repair = event.repairAction && event.repairAction !== "None" ? ` (HyperPod: ${event.repairAction})` : "";
    return <StatusIndicator type={unhealthy ? "error" : "success"}>{`${event.healthStatus ?? "unknown"}${repair}`}</StatusIndicator>;
  }
  if (event.kind === "ClusterEvent") return <StatusIndicator type="error">{event.level ?? "Error"}</StatusIndicator>;
  return <>{event.clusterStatus ?? ""}</>;
}
