import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fakeApi, renderPage, type Answers } from "../../test/fakeApi";
import JobsPage from "./JobsPage";

const BUDGET = { restarts: 1, restartsBeforeFullJobRestart: 3, fullJobRestarts: 0, maxFullJobRestarts: 1, jobMaxRetryCount: 5 };
const JOB = { name: "hello", kind: "HyperPodPyTorchJob", phase: "Running", nodes: 2, gpusPerNode: 4, restartBudget: BUDGET };
const GROUPS = {
  clusterTag: "demo",
  hyperPodClusterName: "hp",
  hyperPodStatus: "InService",
  instanceGroups: [
    { instanceGroupName: "workers", instanceType: "ml.g6.4xlarge", status: "InService", currentCount: 1, targetCount: 1, capacityType: "on-demand", deepHealthChecks: [] },
  ],
};
const RAY_JOB = { name: "verl", namespace: "hyperpod-ns-ml-a", kind: "RayJob", phase: "Succeeded", nodes: 2, gpusPerNode: 4 };
const ANSWERS = {
  "GET /clusters/{clusterTag}/jobs": { clusterTag: "demo", jobs: [JOB, RAY_JOB] },
  "GET /clusters/{clusterTag}/instance-groups": GROUPS,
};

function show(role: "viewer" | "operator", url: string, answers: Answers = ANSWERS) {
  const fake = fakeApi(answers);
  render(renderPage({ api: fake.api, role, route: "/clusters/:clusterTag/jobs", url, element: <JobsPage /> }));
  return fake;
}

async function fillRequired() {
  await userEvent.type(await screen.findByLabelText("Name"), "hello");
  await userEvent.type(screen.getByLabelText("Image"), "train:1");
  await userEvent.click(await screen.findByRole("button", { name: /The instance type/ }));
  await userEvent.click(await screen.findByRole("option", { name: /ml.g6.4xlarge/ }));
}

describe("JobsPage", { timeout: 30_000 }, () => {
  it("shows a Queued badge with why Kueue holds the job", async () => {
    const queued = { ...JOB, name: "waits", phase: "Queued", waitingReason: "Pending: insufficient unused quota" };
    show("viewer", "/clusters/demo/jobs", { ...ANSWERS, "GET /clusters/{clusterTag}/jobs": { clusterTag: "demo", jobs: [queued] } });
    const row = (await screen.findByRole("link", { name: "waits" })).closest("tr")!;
    expect(within(row).getByText("Queued")).toBeInTheDocument();
    expect(within(row).getByText("Pending: insufficient unused quota")).toBeInTheDocument();
  });

  it("lists the jobs with phase, nodes, GPUs and restarts against the budget, and offers a viewer no submit", async () => {
    show("viewer", "/clusters/demo/jobs");
    const row = (await screen.findByRole("link", { name: "hello" })).closest("tr")!;
    expect(within(row).getByText("Running")).toBeInTheDocument();
    expect(row).toHaveTextContent("1 of 3 in place, 0 of 1 full");
    expect(screen.getByRole("link", { name: "hello" })).toHaveAttribute("href", "/clusters/demo/jobs/hello");
    expect(screen.queryByRole("button", { name: "Submit job" })).toBeNull();
  });

  it("finds jobs by text and shows them in pages", async () => {
    const many = Array.from({ length: 25 }, (_, index) => ({ ...JOB, name: `job-${String(index).padStart(2, "0")}` }));
    show("viewer", "/clusters/demo/jobs", { ...ANSWERS, "GET /clusters/{clusterTag}/jobs": { clusterTag: "demo", jobs: [...many, RAY_JOB] } });
    expect(await screen.findByRole("button", { name: "Page 2 of jobs" })).toBeInTheDocument();
    await userEvent.type(screen.getByRole("searchbox", { name: "Find jobs" }), "verl");
    await waitFor(() => expect(screen.queryByRole("link", { name: "job-00" })).toBeNull());
    expect(screen.getByRole("link", { name: "verl" })).toBeInTheDocument();
  });

  it("shows the namespace a team's job runs in", async () => {
    show("viewer", "/clusters/demo/jobs");
    const row = (await screen.findByRole("link", { name: "verl" })).closest("tr")!;
    expect(within(row).getByText("hyperpod-ns-ml-a")).toBeInTheDocument();
  });

  it("shows each job's kind, and no restart budget for a Ray job", async () => {
    show("viewer", "/clusters/demo/jobs");
    const row = (await screen.findByRole("link", { name: "verl" })).closest("tr")!;
    expect(row).toHaveTextContent("RayJob");
    expect(within(row).getByText("Succeeded")).toBeInTheDocument();
    expect(within(screen.getByRole("link", { name: "hello" }).closest("tr")!).getByText("HyperPodPyTorchJob")).toBeInTheDocument();
  });

  it("submits a RayJob without the recovery budget, which the form no longer shows", async () => {
    const fake = show("operator", "/clusters/demo/jobs?action=submit", {
      ...ANSWERS,
      "POST /clusters/{clusterTag}/jobs": { ...RAY_JOB, namespace: "ml", pods: [], events: [] },
    });
    await userEvent.click(await screen.findByRole("button", { name: /Kind/ }));
    await userEvent.click(await screen.findByRole("option", { name: /RayJob/ }));
    expect(screen.queryByLabelText("Full job restarts")).toBeNull();
    await fillRequired();
    await userEvent.type(screen.getByLabelText("Command"), "python3{enter}train.py");
    await userEvent.click(screen.getByRole("button", { name: "Submit job" }));
    const post = fake.calls.find((call) => call.method === "POST");
    expect(post?.body).toEqual({
      name: "hello",
      kind: "RayJob",
      image: "train:1",
      instanceType: "ml.g6.4xlarge",
      command: ["python3", "train.py"],
    });
  });

  it("submits only what the person set, placed on an instance type the cluster has", async () => {
    const fake = show("operator", "/clusters/demo/jobs", {
      ...ANSWERS,
      "POST /clusters/{clusterTag}/jobs": { ...JOB, namespace: "ml", pods: [], events: [] },
    });
    await userEvent.click(await screen.findByRole("button", { name: "Submit job" }));
    await fillRequired();
    expect(screen.getByLabelText("In-place restarts before a full job restart")).toHaveValue(3);
    await userEvent.clear(screen.getByLabelText("Full job restarts"));
    await userEvent.type(screen.getByLabelText("Full job restarts"), "2");
    await userEvent.click(screen.getByRole("button", { name: "Submit job" }));
    const post = fake.calls.find((call) => call.method === "POST");
    expect(post?.body).toEqual({
      name: "hello",
      image: "train:1",
      instanceType: "ml.g6.4xlarge",
      runPolicy: { restartPolicy: { maxFullJobRestarts: 2 } },
    });
  });

  it("offers the cluster's instance groups for a group placement", async () => {
    show("operator", "/clusters/demo/jobs?action=submit");
    await userEvent.click(await screen.findByRole("radio", { name: "Instance group" }));
    await userEvent.click(await screen.findByRole("button", { name: /The instance group/ }));
    expect(await screen.findByRole("option", { name: /workers/ })).toBeInTheDocument();
  });

  it("shows the API's refusal in place with its message and keeps the form", async () => {
    show("operator", "/clusters/demo/jobs?action=submit", {
      ...ANSWERS,
      "POST /clusters/{clusterTag}/jobs": {
        status: 400,
        body: { code: "TooManyGpus", message: "ml.g6.4xlarge has 1 GPU; ask for at most 1.", requestId: "req-7" },
      },
    });
    await fillRequired();
    await userEvent.click(screen.getByRole("button", { name: "Submit job" }));
    expect(await screen.findByText(/has 1 GPU; ask for at most 1\. \(request id req-7\)/)).toBeInTheDocument();
    expect(screen.getByLabelText("Name")).toHaveValue("hello");
  });
});
