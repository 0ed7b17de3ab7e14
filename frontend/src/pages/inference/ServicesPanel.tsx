/** The Services tab: the cluster's model services with readiness and URLs; **Chat** opens the chat tab on one. */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useNavigate } from "react-router-dom";
import { ErrorAlert } from "../../components/ErrorAlert";
import { inferencePath } from "./paths";
import { useServices } from "./useModelServing";

export function ServicesPanel({ clusterTag }: { clusterTag: string }) {
  const services = useServices(clusterTag);
  const navigate = useNavigate();
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={services.error} header="Model services could not be listed" />
      <Table
        loading={services.loading && !services.data}
        loadingText="Loading model services"
        items={services.data ?? []}
        trackBy="name"
        empty={<Box textAlign="center">No model service yet.</Box>}
        header={
          <Header
            counter={services.data ? `(${services.data.length})` : undefined}
            actions={<Button iconName="refresh" ariaLabel="Refresh model services" onClick={services.reload} />}
          >
            Model services
          </Header>
        }
        columnDefinitions={[
          { id: "name", header: "Name", cell: (item) => item.name },
          {
            id: "ready",
            header: "Ready",
            cell: (item) =>
              item.ready ? <StatusIndicator type="success">Ready ({item.readyPods})</StatusIndicator> : <StatusIndicator type="loading">Loading</StatusIndicator>,
          },
          { id: "type", header: "Type", cell: (item) => item.type },
          { id: "model", header: "Model server", cell: (item) => item.model },
          { id: "url", header: "URL", cell: (item) => item.externalUrl ?? item.url },
          {
            id: "chat",
            header: "",
            cell: (item) => (
              <Button variant="inline-link" ariaLabel={`Chat with ${item.name}`} onClick={() => navigate(inferencePath(clusterTag, "chat", { kind: "service", name: item.name }))}>
                Chat
              </Button>
            ),
          },
        ]}
      />
    </SpaceBetween>
  );
}
