/**
 * Inference (`/clusters/{tag}/inference`): tabs for the self-managed model servers (deploy from a serving command),
 * the model services, the model pool, managed endpoints (the HyperPod inference operator's), and a chat with a
 * chosen model service or managed endpoint. The tab is `?tab=`, the chat's target `?service=` or `?endpoint=`.
 */
import Header from "@cloudscape-design/components/header";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Tabs from "@cloudscape-design/components/tabs";
import { useParams, useSearchParams } from "react-router-dom";
import { useQueryParam } from "../cluster/query";
import { ChatPanel, type ChatTarget } from "./ChatPanel";
import { DeploymentsPanel } from "./DeploymentsPanel";
import { EndpointsPanel } from "./EndpointsPanel";
import { PoolPanel } from "./PoolPanel";
import { ServicesPanel } from "./ServicesPanel";
import { useEndpoints, useServices } from "./useModelServing";
import { TAB_SCROLL_LABELS } from "../../components/tabs";

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
        i18nStrings={TAB_SCROLL_LABELS}
        tabs={[
          { id: "deployments", label: "Model servers", content: <DeploymentsPanel clusterTag={clusterTag} /> },
          { id: "services", label: "Services", content: <ServicesPanel clusterTag={clusterTag} /> },
          { id: "pool", label: "Model pool", content: <PoolPanel clusterTag={clusterTag} /> },
          { id: "endpoints", label: "Managed endpoints", content: <EndpointsPanel clusterTag={clusterTag} /> },
          { id: "chat", label: "Chat", content: <ChatTab clusterTag={clusterTag} /> },
        ]}
      />
    </SpaceBetween>
  );
}

/** The chat's target in the URL: `?service=` (a model service) or `?endpoint=` (a managed endpoint); choosing one
 * clears the other. */
function useChatTarget(): [ChatTarget | null, (target: ChatTarget) => void] {
  const [params, setParams] = useSearchParams();
  const service = params.get("service");
  const endpoint = params.get("endpoint");
  const target: ChatTarget | null = service ? { kind: "service", name: service } : endpoint ? { kind: "endpoint", name: endpoint } : null;
  const choose = (chosen: ChatTarget) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete("service");
        next.delete("endpoint");
        next.set(chosen.kind, chosen.name);
        return next;
      },
      { replace: true },
    );
  return [target, choose];
}

/** The chat tab: choose one of the cluster's model services or deployed managed endpoints, then chat with it. */
function ChatTab({ clusterTag }: { clusterTag: string }) {
  const [target, choose] = useChatTarget();
  const services = useServices(clusterTag);
  const endpoints = useEndpoints(clusterTag);
  const groups = [
    {
      label: "Model services",
      options: (services.data ?? []).map((item) => ({ value: `service/${item.name}`, label: item.name, description: item.ready ? "Ready" : "Loading" })),
    },
    {
      label: "Managed endpoints",
      options: (endpoints.data ?? [])
        .filter((item) => item.state === "DeploymentComplete")
        .map((item) => ({ value: `endpoint/${item.name}`, label: item.name, description: item.model })),
    },
  ];
  const chosen = target ? `${target.kind}/${target.name}` : null;
  const loading = (services.loading && !services.data) || (endpoints.loading && !endpoints.data);
  return (
    <SpaceBetween size="m">
      <Select
        ariaLabel="Chat target"
        placeholder="Choose a model service or a managed endpoint"
        statusType={loading ? "loading" : "finished"}
        selectedOption={groups.flatMap((group) => group.options).find((option) => option.value === chosen) ?? null}
        options={groups.filter((group) => group.options.length > 0)}
        onChange={({ detail }) => {
          const [kind, name] = (detail.selectedOption.value ?? "").split("/");
          if (name) choose({ kind: kind === "endpoint" ? "endpoint" : "service", name });
        }}
      />
      {target && <ChatPanel key={chosen} clusterTag={clusterTag} target={target} />}
    </SpaceBetween>
  );
}
