/** The audit trail: every mutating request (who, for whom, role, action, target, operation, outcome), newest first. */
import { useCollection } from "@cloudscape-design/collection-hooks";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import Pagination from "@cloudscape-design/components/pagination";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { useSearchParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RouterLink } from "../../components/links";
import { allPages, useResource } from "../../hooks/useResource";
import { formatTime } from "../operations/format";
import { paginationLabels } from "../../components/labels";

type AuditEntry = Schemas["AuditEntry"];
const FILTERS = [
  { name: "clusterTag", label: "Cluster tag" },
  { name: "actor", label: "Actor" },
  { name: "operationId", label: "Operation id" },
] as const;
type FilterName = (typeof FILTERS)[number]["name"];

export default function AuditPage() {
  const { api } = useApp();
  const [params, setParams] = useSearchParams();
  const applied = Object.fromEntries(FILTERS.map(({ name }) => [name, params.get(name) ?? ""])) as Record<FilterName, string>;
  const [draft, setDraft] = useState(applied);
  const entries = useResource(
    (signal) =>
      allPages<AuditEntry>(async (next) => {
        const query = {
          clusterTag: applied.clusterTag || undefined,
          actor: applied.actor || undefined,
          operationId: applied.operationId || undefined,
          limit: 100,
          continue: next,
        };
        const page = await unwrap(api.GET("/audit", { params: { query }, signal }));
        return { items: page.entries, next: page.continue };
      }, 500),
    [api, applied.clusterTag, applied.actor, applied.operationId],
  );
  const { items, collectionProps, paginationProps } = useCollection(entries.data ?? [], {
    pagination: { pageSize: 25 },
  });
  const apply = () => {
    const next = new URLSearchParams();
    FILTERS.forEach(({ name }) => draft[name].trim() && next.set(name, draft[name].trim()));
    setParams(next);
  };

  return (
    <SpaceBetween size="m">
      <ErrorAlert error={entries.error} header="The audit trail could not be read" />
      <Table
        {...collectionProps}
        variant="full-page"
        loading={entries.loading}
        loadingText="Loading the audit trail"
        items={items}
        trackBy={(entry) => `${entry.requestId}#${entry.at}`}
        header={
          <Header
            variant="awsui-h1-sticky"
            counter={entries.data ? `(${entries.data.length})` : undefined}
            description="One entry per mutating request, refusals included, newest first."
            actions={<Button iconName="refresh" ariaLabel="Refresh" onClick={entries.reload} />}
          >
            Audit trail
          </Header>
        }
        filter={
          <form
            onSubmit={(event) => {
              event.preventDefault();
              apply();
            }}
          >
            <Form actions={<Button formAction="submit">Apply filters</Button>}>
              <SpaceBetween size="s" direction="horizontal">
                {FILTERS.map(({ name, label }) => (
                  <FormField key={name} label={label}>
                    <Input
                      value={draft[name]}
                      onChange={(event) => setDraft((current) => ({ ...current, [name]: event.detail.value }))}
                    />
                  </FormField>
                ))}
              </SpaceBetween>
            </Form>
          </form>
        }
        empty={<Box textAlign="center">No request matches.</Box>}
        pagination={<Pagination {...paginationProps} ariaLabels={paginationLabels("audit records")} />}
        columnDefinitions={[
          { id: "at", header: "Time", cell: (entry) => formatTime(entry.at) },
          { id: "actor", header: "Actor", cell: (entry) => entry.actor },
          { id: "onBehalfOf", header: "On behalf of", cell: (entry) => entry.onBehalfOf ?? "-" },
          { id: "role", header: "Role", cell: (entry) => entry.role },
          { id: "action", header: "Action", cell: (entry) => entry.action },
          { id: "target", header: "Target", cell: (entry) => entry.target },
          {
            id: "operationId",
            header: "Operation",
            cell: (entry) =>
              entry.operationId ? (
                <RouterLink href={`/operations/${encodeURIComponent(entry.operationId)}`}>{entry.operationId}</RouterLink>
              ) : (
                "-"
              ),
          },
          { id: "outcome", header: "Outcome", cell: (entry) => entry.outcome },
          { id: "requestId", header: "Request id", cell: (entry) => entry.requestId },
        ]}
      />
    </SpaceBetween>
  );
}
