import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { vi } from "vitest";
import { fakeApi, renderPage, type Answers } from "../../../test/fakeApi";
import JobsPage from "../JobsPage";

const PARAMETERS = [
  { name: "script", type: "string", required: true, description: "The training script.", maxLength: 1024 },
  { name: "nodes", type: "integer", default: 1, minimum: 1, maximum: 64, description: "Nodes, one pod each.", maxLength: 1024 },
  { name: "gpusPerNode", type: "integer", default: 1, minimum: 1, maximum: 8, description: "GPUs per node.", maxLength: 1024 },
  { name: "finetuningType", type: "enum", default: "lora", choices: ["lora", "full"], description: "What is trained.", maxLength: 1024 },
  { name: "bf16", type: "boolean", default: true, description: "Train in bfloat16.", maxLength: 1024 },
];
const SUMMARY = { name: "demo-recipe", title: "Demo recipe", description: "Trains a demo.", kind: "HyperPodPyTorchJob", image: "demo:1", parameters: PARAMETERS };
const DETAIL = { ...SUMMARY, command: ["train", "{script}"], environment: {}, lastValues: { script: "/s3/last.py", nodes: 2 } };
const GROUPS = {
  clusterTag: "demo",
  hyperPodClusterName: "hp",
  hyperPodStatus: "InService",
  instanceGroups: [
    { instanceGroupName: "workers", instanceType: "ml.g6.4xlarge", status: "InService", currentCount: 1, targetCount: 1, capacityType: "on-demand", deepHealthChecks: [] },
  ],
};
const BUDGET = { restarts: 0, restartsBeforeFullJobRestart: 3, fullJobRestarts: 0, maxFullJobRestarts: 1, jobMaxRetryCount: 5 };
const RENDERED = {
  name: "job-1",
  image: "demo:1",
  command: ["train", "/s3/last.py"],
  nodes: 2,
  gpusPerNode: 1,
  instanceType: "ml.g6.4xlarge",
  environment: { MLFLOW_TRACKING_URI: "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/team" },
};
const ANSWERS: Answers = {
  "GET /clusters/{clusterTag}/jobs": { clusterTag: "demo", jobs: [] },
  "GET /clusters/{clusterTag}/instance-groups": GROUPS,
  "GET /recipes": { recipes: [SUMMARY] },
  "GET /recipes/{recipeName}": DETAIL,
  "GET /clusters/{clusterTag}/mlflow-tracking-servers": {
    clusterTag: "demo",
    region: "us-west-2",
    trackingServers: [{ name: "team", arn: RENDERED.environment.MLFLOW_TRACKING_URI, status: "Created", active: true }],
  },
  "POST /clusters/{clusterTag}/jobs/from-recipe": (call) =>
    call.query.dryRun
      ? { recipe: "demo-recipe", dryRun: true, job: RENDERED }
      : { recipe: "demo-recipe", dryRun: false, job: RENDERED, detail: { name: "job-1", kind: "HyperPodPyTorchJob", phase: "Pending", nodes: 2, gpusPerNode: 1, restartBudget: BUDGET, namespace: "ml", pods: [], events: [] } },
};

function show(answers: Answers = ANSWERS, url = "/clusters/demo/jobs?action=recipe&recipe=demo-recipe", role: "viewer" | "operator" = "operator") {
  const fake = fakeApi(answers);
  render(renderPage({ api: fake.api, role, route: "/clusters/:clusterTag/jobs", url, element: <JobsPage /> }));
  return fake;
}

async function fillJob() {
  await userEvent.type(await screen.findByLabelText("Job name"), "job-1");
  await userEvent.click(await screen.findByRole("button", { name: /The instance type/ }));
  await userEvent.click(await screen.findByRole("option", { name: /ml.g6.4xlarge/ }));
}

describe("Submit from a recipe", { timeout: 30_000 }, () => {
  it("renders the recipe's schema as fields, prefilled with the last values and else the defaults", async () => {
    show();
    expect(await screen.findByLabelText("Script")).toHaveValue("/s3/last.py");
    expect(screen.getByLabelText("Nodes")).toHaveValue(2);
    expect(screen.getByLabelText("Gpus per node")).toHaveValue(1);
    expect(screen.getByRole("button", { name: /Finetuning type/ })).toHaveTextContent("lora");
    expect(screen.getByRole("checkbox", { name: "Bf16" })).toBeChecked();
    expect(screen.getByText(/Nodes, one pod each\. at least 1, at most 64/)).toBeInTheDocument();
  });

  it("is offered from the Training page to an operator, and the chosen recipe goes into the URL", async () => {
    const fake = show(ANSWERS, "/clusters/demo/jobs");
    await userEvent.click(await screen.findByRole("button", { name: "Submit from a recipe" }));
    await userEvent.click(await screen.findByRole("button", { name: /Recipe/ }));
    await userEvent.click(await screen.findByRole("option", { name: /Demo recipe/ }));
    expect(await screen.findByLabelText("Script")).toHaveValue("/s3/last.py");
    expect(fake.calls.find((call) => call.path === "/recipes/{recipeName}")?.pathParams).toEqual({ recipeName: "demo-recipe" });
  });

  it("offers a viewer no recipe submission", async () => {
    show(ANSWERS, "/clusters/demo/jobs", "viewer");
    await screen.findByText("No training job yet.");
    expect(screen.queryByRole("button", { name: "Submit from a recipe" })).toBeNull();
  });

  it("shows the API's dry run before submitting, then submits the same body with MLflow and leaves for the job", async () => {
    const fake = show();
    await fillJob();
    await userEvent.click(screen.getByRole("checkbox", { name: "Track with MLflow" }));
    await userEvent.click(await screen.findByRole("button", { name: /Tracking server/ }));
    await userEvent.click(await screen.findByRole("option", { name: /team/ }));
    await userEvent.type(screen.getByLabelText("Experiment"), "exp-1");
    await userEvent.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText(/MLFLOW_TRACKING_URI=arn:aws:sagemaker/)).toBeInTheDocument();
    expect(screen.getByText("train /s3/last.py")).toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Submit job" }));

    const posts = fake.calls.filter((call) => call.method === "POST");
    expect(posts.map((call) => call.query)).toEqual([{ dryRun: true }, { dryRun: false }]);
    expect(posts[1].body).toEqual({
      recipe: "demo-recipe",
      name: "job-1",
      instanceType: "ml.g6.4xlarge",
      values: { script: "/s3/last.py", nodes: 2, gpusPerNode: 1, finetuningType: "lora", bf16: true },
      mlflow: { trackingServer: "team", experiment: "exp-1" },
    });
    await waitFor(() => expect(screen.queryByLabelText("Job name")).toBeNull());
  });

  it("asks for a new review after any change", async () => {
    show();
    await fillJob();
    await userEvent.click(screen.getByRole("button", { name: "Review" }));
    await screen.findByRole("button", { name: "Submit job" });
    await userEvent.type(screen.getByLabelText("Script"), "x");
    expect(screen.getByRole("button", { name: "Review" })).toBeInTheDocument();
  });

  it("shows a refusal at the parameter it names and keeps the values", async () => {
    show({
      ...ANSWERS,
      "POST /clusters/{clusterTag}/jobs/from-recipe": {
        status: 400,
        body: { code: "InvalidRequest", message: "Parameter 'nodes' of recipe 'demo-recipe' must be at most 64.", requestId: "req-9", details: { parameter: "nodes" } },
      },
    });
    await fillJob();
    await userEvent.clear(screen.getByLabelText("Nodes"));
    await userEvent.type(screen.getByLabelText("Nodes"), "65");
    await userEvent.click(screen.getByRole("button", { name: "Review" }));
    expect(await screen.findByText(/must be at most 64\. \(request id req-9\)/)).toBeInTheDocument();
    expect(screen.getAllByText(/Parameter 'nodes' of recipe 'demo-recipe' must be at most 64\./)).toHaveLength(2);
    expect(screen.getByLabelText("Nodes")).toHaveValue(65);
  });

  it("puts the review right above the action and scrolls it into view", async () => {
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    show();
    await fillJob();
    await userEvent.click(screen.getByRole("button", { name: "Review" }));
    const review = await screen.findByRole("region", { name: "Review" });
    const submit = screen.getByRole("button", { name: "Submit job" });
    expect(review.compareDocumentPosition(submit) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(screen.getByRole("region", { name: "Experiment tracking" }).compareDocumentPosition(review) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await waitFor(() => expect(scrolled).toHaveBeenCalled());
    // Scrolled to the end of the form: the action at the bottom of the window, the review right above it.
    const target = scrolled.mock.contexts.at(-1) as Element;
    expect(submit.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(scrolled.mock.calls.at(-1)).toEqual([{ block: "end" }]);
  });

  it("holds the action on a dry run's refusal, saying the fix first, until something changes", async () => {
    Element.prototype.scrollIntoView = vi.fn();
    show({
      ...ANSWERS,
      "POST /clusters/{clusterTag}/jobs/from-recipe": {
        status: 400,
        body: {
          code: "FeatureNotEnabled",
          message: "HyperPodPyTorchJob needs the 'trainingOperator' feature (the HyperPod training operator add-on is not installed).",
          requestId: "req-7",
          details: { feature: "trainingOperator" },
        },
      },
    });
    await fillJob();
    await userEvent.click(screen.getByRole("button", { name: "Review" }));
    const refusal = await screen.findByRole("region", { name: "Review" });
    expect(within(refusal).getByText("The dry run refuses this job: fix first")).toBeInTheDocument();
    expect(within(refusal).getByText(/needs the 'trainingOperator' feature/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Review" })).toHaveAttribute("aria-disabled", "true");
    await userEvent.type(screen.getByLabelText("Script"), "x");
    expect(screen.getByRole("button", { name: "Review" })).not.toHaveAttribute("aria-disabled");
    expect(screen.queryByText("The dry run refuses this job: fix first")).toBeNull();
  });
});
