/**
 * Inference (`/clusters/{tag}/inference`): tabs for the self-managed model servers (deploy from a serving command),
 * the model services, the model pool, a chat with a chosen service, and managed endpoints (the HyperPod inference
 * operator's, in their own panel). The tab is `?tab=`, the chat's service `?service=`.
 */
import Header from "@cloudscape-design/components/header";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Tabs from "@cloudscape-design/components/tabs";
import Box from "@cloudscape-design/components/box";
import { useParams } from "react-router-dom";
import { useQueryParam } from "../cluster/query";
import { ChatPanel } from "./ChatPanel";
import { DeploymentsPanel } from "./DeploymentsPanel";
import { PoolPanel } from "./PoolPanel";
import { ServicesPanel } from "./ServicesPanel";
import { useServices } from "./useModelServing";

export default function InferencePage() {
  const clusterTag = useParams().clusterTag ?? "";
  const [tab, setTab] = useQueryParam("tab");
  return (
    <SpaceBetween size="m">
      <Header variant="h1" description={`Model servers and endpoints on cluster ${clusterTag}, and a chat to call them.`}>
        Inference
      </Header>
      <Tabs
        activeTabId={tab ?? "deployments"}
        onChange={({ detail }) => setTab(detail.activeTabId)}
        tabs={[
          { id: "deployments", label: "Model servers", content: <DeploymentsPanel clusterTag={clusterTag} /> },
          { id: "services", label: "Services", content: <ServicesPanel clusterTag={clusterTag} /> },
          { id: "pool", label: "Model pool", content: <PoolPanel clusterTag={clusterTag} /> },
          { id: "chat", label: "Chat", content: <ChatTab clusterTag={clusterTag} /> },
          {
            id: "endpoints",
            label: "Managed endpoints",
            content: <Box>Managed endpoints (the HyperPod inference operator&apos;s InferenceEndpointConfig) are shown here.</Box>,
          },
        ]}
      />
    </SpaceBetween>
  );
}

/** The chat tab: choose one of the cluster's model services, then chat with it. */
function ChatTab({ clusterTag }: { clusterTag: string }) {
  const [service, setService] = useQueryParam("service");
  const services = useServices(clusterTag);
  const options = (services.data ?? []).map((item) => ({ value: item.name, label: item.name, description: item.ready ? "Ready" : "Loading" }));
  return (
    <SpaceBetween size="m">
      <Select
        ariaLabel="Model service"
        placeholder="Choose a model service"
        statusType={services.loading && !services.data ? "loading" : "finished"}
        selectedOption={options.find((option) => option.value === service) ?? null}
        options={options}
        onChange={({ detail }) => setService(detail.selectedOption.value ?? null)}
      />
      {service && <ChatPanel key={service} clusterTag={clusterTag} target={{ kind: "service", name: service }} />}
    </SpaceBetween>
  );
}
