/**
 * The cluster's events in one table (`GET …/hyperpod-events`): HyperPod's own (ListClusterEvents under continuous
 * provisioning) and Kubernetes' Warning events, each with its source, newest first a page at a time, filtered by instance group, node and HyperPod operation (a deep health check's or a
 * scaling's). The filters are the URL's (`?hpGroup=&hpNode=&hpOperation=`), so a filtered view is a permalink.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useCallback, useEffect, useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useQueryParam } from "./query";

type ClusterEvent = Schemas["ClusterEventView"];

const LEVELS = { Info: "info", Warn: "warning", Warning: "warning", Error: "error" } as const;
const SOURCES = { hyperpod: "HyperPod", kubernetes: "Kubernetes" } as const;
// A filter is sent once it is whole (the API refuses a partial id with a 400).
const COMPLETE = {
  instanceGroup: /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/,
  nodeId: /^(hyperpod-)?i-[a-f0-9]{8}([a-f0-9]{9})?$/,
  operationId: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
};

function whole(filters: Record<keyof typeof COMPLETE, string | null>): Partial<Record<keyof typeof COMPLETE, string>> {
  return Object.fromEntries(
    Object.entries(filters).filter(([name, value]) => value && COMPLETE[name as keyof typeof COMPLETE].test(value)),
  ) as Partial<Record<keyof typeof COMPLETE, string>>;
}

export function HyperPodEventsPanel({ clusterTag }: { clusterTag: string }) {
  const { api } = useApp();
  const [instanceGroup, setGroup] = useQueryParam("hpGroup");
  const [nodeId, setNode] = useQueryParam("hpNode");
  const [operationId, setOperation] = useQueryParam("hpOperation");
  const [events, setEvents] = useState<ClusterEvent[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();

  const load = useCallback(
    async (token: string | null, signal?: AbortSignal) => {
      setLoading(true);
      const filters = whole({ instanceGroup, nodeId, operationId });
      const query = { limit: 50, ...filters, ...(token ? { continue: token } : {}) };
      try {
        const page = await unwrap(api.GET("/clusters/{clusterTag}/hyperpod-events", { params: { path: { clusterTag }, query }, signal }));
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
    [api, clusterTag, instanceGroup, nodeId, operationId],
  );

  useEffect(() => {
    const controller = new AbortController();
    void load(null, controller.signal);
    return () => controller.abort();
  }, [load]);

  return (
    <SpaceBetween size="m">
      <ErrorAlert error={error} header="The cluster's events could not be listed" />
      <Table
        loading={loading && events.length === 0}
        loadingText="Loading cluster events"
        items={events}
        trackBy={(event) => `${event.source}/${event.eventId}`}
        wrapLines
        empty={<Box textAlign="center">No event (HyperPod's exist under continuous provisioning).</Box>}
        header={
          <Header
            counter={`(${events.length}${next ? "+" : ""})`}
            description="HyperPod's own events (scaling, node replacements and reboots, deep health checks) and Kubernetes' Warning events, newest first. An operation filter shows HyperPod's only."
            actions={<Button iconName="refresh" ariaLabel="Refresh cluster events" onClick={() => void load(null)} />}
          >
            Cluster events
          </Header>
        }
        filter={
          <ColumnLayout columns={3}>
            <FormField label="Instance group">
              <Input value={instanceGroup ?? ""} onChange={(event) => setGroup(event.detail.value || null)} ariaLabel="Instance group" />
            </FormField>
            <FormField label="Node">
              <Input value={nodeId ?? ""} onChange={(event) => setNode(event.detail.value || null)} ariaLabel="Node" placeholder="i-…" />
            </FormField>
            <FormField label="HyperPod operation">
              <Input value={operationId ?? ""} onChange={(event) => setOperation(event.detail.value || null)} ariaLabel="HyperPod operation" />
            </FormField>
          </ColumnLayout>
        }
        footer={
          next ? (
            <Box textAlign="center">
              <Button loading={loading} onClick={() => void load(next)}>
                Load more
              </Button>
            </Box>
          ) : undefined
        }
        columnDefinitions={[
          { id: "time", header: "Time", cell: (event) => new Date(event.time).toLocaleString() },
          { id: "source", header: "Source", cell: (event) => SOURCES[event.source] },
          { id: "level", header: "Level", cell: (event) => <StatusIndicator type={LEVELS[event.level as keyof typeof LEVELS] ?? "info"}>{event.level ?? "Info"}</StatusIndicator> },
          { id: "subject", header: "Subject", cell: (event) => event.object ?? event.nodeId ?? event.instanceGroup ?? event.resourceType ?? "" },
          { id: "description", header: "Description", cell: (event) => [event.reason, event.description].filter(Boolean).join(": ") },
          { id: "operation", header: "HyperPod operation", cell: (event) => event.operationId ?? "" },
        ]}
      />
    </SpaceBetween>
  );
}
