import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fakeApi, LocationSearch, renderPage, type Answers, type Call } from "../../test/fakeApi";
import { EndpointsPanel } from "./EndpointsPanel";

const QWEN = {
  name: "qwen",
  kind: "InferenceEndpointConfig",
  state: "DeploymentComplete",
  model: "Qwen/Qwen3-0.6B",
  instanceType: "ml.g5.12xlarge",
  replicas: 1,
};
const DETAIL = {
  ...QWEN,
  namespace: "ml",
  sageMakerEndpointName: "is-demo-qwen",
  readyReplicas: 1,
  routing: "prefixaware",
  conditions: [{ type: "Ready", status: "True", reason: "Ready", message: "1 worker(s) ready" }],
  pods: [{ name: "qwen-worker-0", node: "hyperpod-i-1", phase: "Running" }],
};
const GROUPS = {
  clusterTag: "demo",
  hyperPodClusterName: "hp",
  hyperPodStatus: "InService",
  instanceGroups: [
    { instanceGroupName: "workers", instanceType: "ml.g5.12xlarge", status: "InService", currentCount: 1, targetCount: 1, capacityType: "on-demand", deepHealthChecks: [] },
  ],
};
const ANSWERS: Answers = {
  "GET /clusters/{clusterTag}/endpoints": { clusterTag: "demo", endpoints: [QWEN] },
  "GET /clusters/{clusterTag}/endpoints/{name}": DETAIL,
  "GET /clusters/{clusterTag}/instance-groups": GROUPS,
};

function Panel() {
  return (
    <>
      <EndpointsPanel clusterTag="demo" />
      <LocationSearch />
    </>
  );
}

function show(role: "viewer" | "operator", url: string, answers: Answers = ANSWERS) {
  const fake = fakeApi(answers);
  render(renderPage({ api: fake.api, role, route: "/clusters/:clusterTag/inference", url, element: <Panel /> }));
  return fake;
}

async function fillEndpoint() {
  await userEvent.type(await screen.findByLabelText("Name"), "qwen");
  await userEvent.click(screen.getByRole("button", { name: /Instance type/ }));
  await userEvent.click(await screen.findByRole("option", { name: /ml.g5.12xlarge/ }));
}

describe("EndpointsPanel", { timeout: 30_000 }, () => {
  it("lists the endpoints with their state, and offers a viewer neither create nor delete", async () => {
    show("viewer", "/clusters/demo/inference?endpoint=qwen");
    const table = await screen.findByRole("table", { name: "Managed endpoints" });
    const row = (await within(table).findByText("Qwen/Qwen3-0.6B")).closest("tr")!;
    expect(within(row).getByText("DeploymentComplete")).toBeInTheDocument();
    expect(row).toHaveTextContent("InferenceEndpointConfig");
    expect(await screen.findByText("is-demo-qwen")).toBeInTheDocument();
    expect(screen.getByText("qwen-worker-0")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Create endpoint" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete" })).toBeNull();
  });

  it("opens the page's chat on a deployed endpoint", async () => {
    show("operator", "/clusters/demo/inference?tab=endpoints&endpoint=qwen");
    await userEvent.click(await screen.findByRole("button", { name: "Chat with qwen" }));
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent("?tab=chat&endpoint=qwen"));
  });

  it("creates your model from Hugging Face with the cache and routing choices, sending only what was set", async () => {
    const fake = show("operator", "/clusters/demo/inference", {
      ...ANSWERS,
      "POST /clusters/{clusterTag}/endpoints": { status: 201, body: { ...DETAIL, state: "DeploymentPending" } },
    });
    await userEvent.click(await screen.findByRole("button", { name: "Create endpoint" }));
    await fillEndpoint();
    await userEvent.type(screen.getByLabelText("Hugging Face model id"), "Qwen/Qwen3-0.6B");
    await userEvent.type(screen.getByLabelText("Worker image"), "vllm:1");
    await userEvent.click(screen.getByRole("button", { name: /L2 KV cache/ }));
    await userEvent.click(await screen.findByRole("option", { name: "redis" }));
    await userEvent.type(screen.getByLabelText("Redis URL"), "redis://cache:6379");
    await userEvent.click(screen.getByRole("button", { name: /Intelligent routing/ }));
    await userEvent.click(await screen.findByRole("option", { name: "kvaware" }));
    await userEvent.click(screen.getByRole("button", { name: "Create endpoint" }));
    await waitFor(() => expect(fake.calls.find((call) => call.method === "POST")).toBeDefined());
    expect(fake.calls.find((call) => call.method === "POST")?.body).toEqual({
      name: "qwen",
      instanceType: "ml.g5.12xlarge",
      model: { source: { huggingFace: { modelId: "Qwen/Qwen3-0.6B" } }, image: "vllm:1" },
      kvCache: { l2: { backend: "redis", localUrl: "redis://cache:6379" } },
      routing: { strategy: "kvaware" },
    });
  });

  it("creates a JumpStart model and deploys a training job's output by its name", async () => {
    const fake = show("operator", "/clusters/demo/inference?endpointAction=create", {
      ...ANSWERS,
      "POST /clusters/{clusterTag}/endpoints": { status: 201, body: DETAIL },
    });
    await fillEndpoint();
    await userEvent.click(screen.getByRole("radio", { name: /JumpStart model/ }));
    await userEvent.type(screen.getByLabelText("JumpStart model id"), "deepseek-llm-r1-distill-qwen-1-5b");
    await userEvent.click(screen.getByRole("checkbox", { name: /end-user licence/ }));
    await userEvent.click(screen.getByRole("button", { name: "Create endpoint" }));
    await waitFor(() => expect(fake.calls.filter((call) => call.method === "POST")).toHaveLength(1));
    expect(fake.calls.find((call) => call.method === "POST")?.body).toEqual({
      name: "qwen",
      instanceType: "ml.g5.12xlarge",
      jumpStart: { modelId: "deepseek-llm-r1-distill-qwen-1-5b", acceptEula: true },
    });
    // The form closes and the created endpoint is the one shown.
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(/^\?endpoint=qwen$/));
  });

  it("sends a training job as the model source", async () => {
    const fake = show("operator", "/clusters/demo/inference?endpointAction=create", {
      ...ANSWERS,
      "POST /clusters/{clusterTag}/endpoints": { status: 201, body: DETAIL },
    });
    await fillEndpoint();
    await userEvent.click(screen.getByRole("radio", { name: "Training job output" }));
    await userEvent.type(screen.getByLabelText("Training job"), "sft");
    await userEvent.type(screen.getByLabelText("Worker image"), "vllm:1");
    await userEvent.click(screen.getByRole("button", { name: "Create endpoint" }));
    await waitFor(() => expect(fake.calls.filter((call) => call.method === "POST")).toHaveLength(1));
    expect(fake.calls.find((call) => call.method === "POST")?.body).toMatchObject({ model: { source: { job: "sft" }, image: "vllm:1" } });
  });

  it("shows the API's refusal in place with its message and keeps the form", async () => {
    show("operator", "/clusters/demo/inference?endpointAction=create", {
      ...ANSWERS,
      "POST /clusters/{clusterTag}/endpoints": {
        status: 409,
        body: { code: "RoutingImmutable", message: "Routing of endpoint 'qwen' is immutable; delete and create it again.", requestId: "req-9" },
      },
    });
    await fillEndpoint();
    await userEvent.click(screen.getByRole("button", { name: "Create endpoint" }));
    expect(await screen.findByText(/is immutable; delete and create it again\. \(request id req-9\)/)).toBeInTheDocument();
    expect(screen.getByLabelText("Name")).toHaveValue("qwen");
  });

  it("deletes an endpoint only after showing the API's plan, with its token", async () => {
    const fake = show("operator", "/clusters/demo/inference?endpoint=qwen", {
      ...ANSWERS,
      "DELETE /clusters/{clusterTag}/endpoints/{name}": (call: Call) =>
        call.query.dryRun
          ? { dryRun: true, actions: [{ action: "delete", resource: "InferenceEndpointConfig", name: "ml/qwen" }], confirmationToken: "token-1", message: "Deleting endpoint qwen removes its 1 worker(s)." }
          : { dryRun: false, actions: [], message: "Deleting endpoint qwen." },
    });
    await userEvent.click(await screen.findByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("Deleting endpoint qwen removes its 1 worker(s).")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete endpoint" }));
    await waitFor(() => expect(fake.calls.filter((call) => call.method === "DELETE")).toHaveLength(2));
    const deletes = fake.calls.filter((call) => call.method === "DELETE").map((call) => call.query);
    expect(deletes).toEqual([{ dryRun: true }, { confirmationToken: "token-1" }]);
  });
});
