import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fakeApi, renderPage, type Answers } from "../../test/fakeApi";
import InferencePage from "./InferencePage";

const SERVER = {
  name: "qwen",
  serviceType: "internal",
  engine: "vllm",
  model: "Qwen/Qwen3-0.6B",
  image: "vllm/vllm-openai:latest",
  gpus: 1,
  replicas: 1,
  readyReplicas: 1,
  status: "Ready",
  port: 8000,
};
const SERVICE = {
  name: "qwen",
  namespace: "default",
  type: "internal",
  model: "qwen",
  port: 8000,
  ready: true,
  readyPods: 1,
  url: "http://qwen.default.svc.cluster.local:8000",
};
const WORKER = { pod: "pool-abc", uid: "u-1", model: "pool", ready: true };
const ENDPOINT = { name: "managed", kind: "InferenceEndpointConfig", state: "DeploymentComplete", model: "Qwen/Qwen3-0.6B", replicas: 1 };
const DEPLOYING = { ...ENDPOINT, name: "later", state: "DeploymentInProgress" };
const ANSWER = { object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "I am a sandbox echo model." } }] };
const GROUPS = {
  clusterTag: "demo",
  hyperPodClusterName: "hp",
  hyperPodStatus: "InService",
  instanceGroups: [
    { instanceGroupName: "workers", instanceType: "ml.g6.4xlarge", status: "InService", currentCount: 1, targetCount: 1, capacityType: "on-demand", deepHealthChecks: [] },
  ],
};
const ANSWERS: Answers = {
  "GET /clusters/{clusterTag}/deployments": { clusterTag: "demo", deployments: [SERVER] },
  "GET /clusters/{clusterTag}/services": { clusterTag: "demo", services: [SERVICE] },
  "GET /clusters/{clusterTag}/model-pool": { clusterTag: "demo", workers: [WORKER] },
  "GET /clusters/{clusterTag}/endpoints": { clusterTag: "demo", endpoints: [ENDPOINT] },
  "GET /clusters/{clusterTag}/instance-groups": GROUPS,
};

function show(role: "viewer" | "operator", url: string, answers: Answers = ANSWERS) {
  const fake = fakeApi({ ...ANSWERS, ...answers });
  render(renderPage({ api: fake.api, role, route: "/clusters/:clusterTag/inference", url, element: <InferencePage /> }));
  return fake;
}

describe("InferencePage", { timeout: 30_000 }, () => {
  it("shows a Queued badge with why Kueue holds a team's model server", async () => {
    const queued = { ...SERVER, name: "waits", model: "waits-model", namespace: "hyperpod-ns-ml-a", readyReplicas: 0, status: "Queued", waitingReason: "Pending: insufficient unused quota" };
    show("viewer", "/clusters/demo/inference", { "GET /clusters/{clusterTag}/deployments": { clusterTag: "demo", deployments: [queued] } });
    const row = (await screen.findByText("waits-model")).closest("tr")!;
    expect(within(row).getByText("Queued")).toBeInTheDocument();
    expect(within(row).getByText("Pending: insufficient unused quota")).toBeInTheDocument();
  });

  it("lists the model servers and offers a viewer no deploy", async () => {
    show("viewer", "/clusters/demo/inference");
    const row = (await screen.findByText("Qwen/Qwen3-0.6B")).closest("tr")!;
    expect(row).toHaveTextContent("1 / 1");
    expect(within(row).getByText("Ready")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Deploy model" })).toBeNull();
    expect(screen.getByRole("tab", { name: "Managed endpoints" })).toBeInTheDocument();
  });

  it("scales a model server up at once", async () => {
    const { calls } = show("operator", "/clusters/demo/inference", {
      "PATCH /clusters/{clusterTag}/deployments/{name}": { deployment: { ...SERVER, replicas: 2 }, changes: { replicas: "updated" } },
    });
    await userEvent.click(await screen.findByRole("radio", { name: "Select qwen" }));
    await userEvent.click(screen.getByRole("button", { name: "Scale" }));
    const replicas = within(await screen.findByRole("dialog")).getByLabelText("Replicas");
    await userEvent.clear(replicas);
    await userEvent.type(replicas, "2");
    await userEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Scale" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const patches = calls.filter((call) => call.method === "PATCH");
    expect(patches.map((call) => [call.pathParams, call.query, call.body])).toEqual([
      [{ clusterTag: "demo", name: "qwen" }, {}, { replicas: 2 }],
    ]);
  });

  it("scales a model server to zero only after showing the plan the API asks to confirm", async () => {
    const plan = {
      dryRun: true,
      actions: [{ action: "update", resource: "Deployment", name: "default/qwen", detail: "replicas 1 -> 0: every pod stops" }],
      confirmationToken: "token-z",
      message: "Scaling qwen to 0 replicas stops its model server.",
    };
    const { calls } = show("operator", "/clusters/demo/inference", {
      "PATCH /clusters/{clusterTag}/deployments/{name}": (call) =>
        call.query.confirmationToken === "token-z"
          ? { deployment: { ...SERVER, replicas: 0 }, changes: { replicas: "updated" } }
          : { status: 400, body: { code: "ConfirmationRequired", message: "Confirm first.", requestId: "r", details: plan } },
    });
    await userEvent.click(await screen.findByRole("radio", { name: "Select qwen" }));
    await userEvent.click(screen.getByRole("button", { name: "Scale" }));
    const replicas = within(await screen.findByRole("dialog")).getByLabelText("Replicas");
    await userEvent.clear(replicas);
    await userEvent.type(replicas, "0");
    await userEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Scale" }));
    const dialog = await screen.findByRole("dialog", { name: "Scale qwen to 0 replicas" });
    expect(within(dialog).getByText("replicas 1 -> 0: every pod stops")).toBeInTheDocument();
    expect(calls.filter((call) => call.method === "PATCH")).toHaveLength(1);
    await userEvent.click(within(dialog).getByRole("button", { name: "Scale" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const patches = calls.filter((call) => call.method === "PATCH");
    expect(patches.map((call) => call.query)).toEqual([{}, { confirmationToken: "token-z" }]);
  });

  it("deletes a model server only after its plan and its name typed, and opens each server's page", async () => {
    const plan = {
      dryRun: true,
      confirmationToken: "token-9",
      message: "Deleting qwen stops its model server and removes its Services; callers lose it.",
      actions: [{ action: "delete", resource: "Deployment", name: "default/qwen", detail: "1 replica(s)" }],
    };
    const { calls } = show("operator", "/clusters/demo/inference", {
      "DELETE /clusters/{clusterTag}/deployments/{name}": (call) =>
        call.query.confirmationToken ? { ...plan, dryRun: false, confirmationToken: null, message: "Deleted model server qwen and its Services." } : plan,
    });
    expect(await screen.findByRole("link", { name: "qwen" })).toHaveAttribute("href", "/clusters/demo/inference/deployments/qwen");
    await userEvent.click(screen.getByRole("radio", { name: "Select qwen" }));
    await userEvent.click(screen.getByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog");
    expect((await within(dialog).findAllByText("default/qwen")).length).toBeGreaterThan(0);
    const remove = within(dialog).getByRole("button", { name: "Delete model server" });
    expect(remove).toBeDisabled();
    await userEvent.type(within(dialog).getByRole("textbox", { name: "To confirm, type qwen" }), "qwen");
    await userEvent.click(remove);
    await waitFor(() =>
      expect(calls.filter((call) => call.method === "DELETE").map((call) => call.query)).toEqual([{}, { confirmationToken: "token-9" }]),
    );
  });

  it("finds model servers by text", async () => {
    show("viewer", "/clusters/demo/inference", {
      "GET /clusters/{clusterTag}/deployments": { clusterTag: "demo", deployments: [SERVER, { ...SERVER, name: "llama", model: "meta/llama" }] },
    });
    await userEvent.type(await screen.findByRole("searchbox", { name: "Find model servers" }), "llama");
    await waitFor(() => expect(screen.queryByRole("link", { name: "qwen" })).toBeNull());
    expect(screen.getByRole("link", { name: "llama" })).toBeInTheDocument();
  });

  it("offers a viewer no scaling", async () => {
    show("viewer", "/clusters/demo/inference");
    await screen.findByText("Qwen/Qwen3-0.6B");
    expect(screen.queryByRole("button", { name: "Scale" })).toBeNull();
    expect(screen.queryByRole("radio", { name: "Select qwen" })).toBeNull();
  });

  it("deploys only once the GPU count is given, and sends it with the command", async () => {
    const { calls } = show("operator", "/clusters/demo/inference?action=deploy", {
      "POST /clusters/{clusterTag}/deployments": { status: 201, body: { ...SERVER, status: "Loading", namespace: "default", command: [], pods: [] } },
    });
    await userEvent.type(await screen.findByLabelText("Name"), "qwen");
    await userEvent.type(screen.getByLabelText("Serving command"), "vllm serve Qwen/Qwen3-0.6B --tensor-parallel-size 1");
    const deploy = screen.getByRole("button", { name: "Deploy" });
    expect(deploy).toBeDisabled();
    await userEvent.type(screen.getByLabelText("GPUs per replica"), "1");
    await userEvent.click(deploy);
    await screen.findByText("Model servers");
    const posted = calls.find((call) => call.method === "POST");
    expect(posted?.body).toEqual({
      name: "qwen",
      command: "vllm serve Qwen/Qwen3-0.6B --tensor-parallel-size 1",
      gpus: 1,
      serviceType: "internal",
      replicas: 1,
      sharedMemoryGi: 16,
    });
  });

  it("shows the API's refusal above the form", async () => {
    show("operator", "/clusters/demo/inference?action=deploy", {
      "POST /clusters/{clusterTag}/deployments": { status: 400, body: { code: "InvalidRequest", message: "How many GPUs should each replica get?", requestId: "r-1" } },
    });
    await userEvent.type(await screen.findByLabelText("Name"), "qwen");
    await userEvent.type(screen.getByLabelText("Serving command"), "vllm serve m --tp 4");
    await userEvent.type(screen.getByLabelText("GPUs per replica"), "1");
    await userEvent.click(screen.getByRole("button", { name: "Deploy" }));
    expect(await screen.findByText(/How many GPUs/)).toBeInTheDocument();
  });

  it("chats with the chosen service and shows its answer", async () => {
    const { calls } = show("operator", "/clusters/demo/inference?tab=chat&service=qwen", {
      "POST /clusters/{clusterTag}/services/{name}/chat": ANSWER,
    });
    await userEvent.type(await screen.findByLabelText("Prompt"), "hello");
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByTestId("answer")).toHaveTextContent("I am a sandbox echo model.");
    const chat = calls.find((call) => call.method === "POST");
    expect(chat?.pathParams).toEqual({ clusterTag: "demo", name: "qwen" });
    expect(chat?.body).toEqual({ messages: [{ role: "user", content: "hello" }], max_tokens: 512, temperature: 0.7 });
  });

  it("shows the managed endpoints in their tab", async () => {
    show("viewer", "/clusters/demo/inference?tab=endpoints");
    const table = await screen.findByRole("table", { name: "Managed endpoints" });
    expect(await within(table).findByText("managed")).toBeInTheDocument();
    expect(within(table).getByText("DeploymentComplete")).toBeInTheDocument();
  });

  it("offers model services and deployed managed endpoints as chat targets", async () => {
    show("operator", "/clusters/demo/inference?tab=chat", {
      "GET /clusters/{clusterTag}/endpoints": { clusterTag: "demo", endpoints: [ENDPOINT, DEPLOYING] },
    });
    await userEvent.click(await screen.findByRole("button", { name: /Chat target/ }));
    expect(await screen.findByRole("option", { name: /qwen/ })).toBeInTheDocument();
    expect(screen.getByRole("option", { name: /managed/ })).toBeInTheDocument();
    expect(screen.queryByRole("option", { name: /later/ })).toBeNull();
  });

  it("chats with a chosen managed endpoint through its own route, with the same contract", async () => {
    const { calls } = show("operator", "/clusters/demo/inference?tab=chat", {
      "POST /clusters/{clusterTag}/endpoints/{name}/chat": ANSWER,
    });
    await userEvent.click(await screen.findByRole("button", { name: /Chat target/ }));
    await userEvent.click(await screen.findByRole("option", { name: /managed/ }));
    await userEvent.type(await screen.findByLabelText("Prompt"), "hello");
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByTestId("answer")).toHaveTextContent("I am a sandbox echo model.");
    const chat = calls.find((call) => call.method === "POST");
    expect(chat?.path).toBe("/clusters/{clusterTag}/endpoints/{name}/chat");
    expect(chat?.pathParams).toEqual({ clusterTag: "demo", name: "managed" });
    expect(chat?.body).toEqual({ messages: [{ role: "user", content: "hello" }], max_tokens: 512, temperature: 0.7 });
  });

  it("binds a pool worker to a service", async () => {
    const { calls } = show("operator", "/clusters/demo/inference?tab=pool", {
      "POST /clusters/{clusterTag}/model-pool": { worker: { ...WORKER, service: "chat" }, message: "bound" },
    });
    await userEvent.type(await screen.findByLabelText("Service for pool-abc"), "chat");
    await userEvent.click(screen.getByRole("button", { name: "Bind pool-abc" }));
    await screen.findAllByText("unassigned");
    expect(calls.find((call) => call.method === "POST")?.body).toEqual({ action: "bind", worker: "pool-abc", service: "chat", serviceType: "internal" });
  });
});
