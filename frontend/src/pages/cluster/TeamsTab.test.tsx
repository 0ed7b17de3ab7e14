import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import TeamsTab from "./TeamsTab";
import { fakeApi } from "../../test/fakeApi";
import { PLAN_WITH_TOKEN, renderTab } from "./testing";

const TEAM = {
  team: "ml-a",
  namespace: "hyperpod-ns-ml-a",
  localQueue: "hyperpod-ns-ml-a-localqueue",
  quotaId: "abcdef123456",
  status: "Created",
  active: true,
  allocations: [{ instanceType: "ml.g5.xlarge", count: 2 }],
  sharing: "LendAndBorrow",
  borrowLimit: 50,
  preemptTeamTasks: "LowerPriority",
};
const TEAMS = { clusterTag: "demo", teams: [TEAM], capacity: { "ml.g5.xlarge": 4 }, allocated: { "ml.g5.xlarge": 2 } };

describe("TeamsTab", () => {
  it("shows each team's quota and queue with the cluster's capacity, and no action to a viewer", async () => {
    renderTab(TeamsTab, { api: fakeApi({ "GET /clusters/{clusterTag}/teams": TEAMS }).api, role: "viewer" });
    const row = (await screen.findByText("ml-a")).closest("tr")!;
    expect(within(row).getByText("2 × ml.g5.xlarge")).toBeInTheDocument();
    expect(within(row).getByText("hyperpod-ns-ml-a / hyperpod-ns-ml-a-localqueue")).toBeInTheDocument();
    expect(screen.getByText(/2 of 4 × ml\.g5\.xlarge guaranteed/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Create team" })).toBeNull();
  });

  it("shows what each team's jobs use and which wait, with Kueue's reason", async () => {
    const waiting = "couldn't assign flavors to pod set pods: insufficient unused quota for nvidia.com/gpu in flavor ml.g5.xlarge, 1 more needed";
    const busy = {
      ...TEAM,
      inUse: [
        { instanceType: "ml.g5.xlarge", resource: "nvidia.com/gpu", inUse: "2", borrowed: "1" },
        { instanceType: "ml.g5.xlarge", resource: "cpu", inUse: "8", borrowed: "0" },
      ],
      admittedWorkloads: 1,
      queued: [{ name: "second", kind: "HyperPodPyTorchJob", reason: "Pending", message: waiting }],
    };
    renderTab(TeamsTab, { api: fakeApi({ "GET /clusters/{clusterTag}/teams": { ...TEAMS, teams: [busy] } }).api, role: "viewer" });
    const row = (await screen.findByText("ml-a")).closest("tr")!;
    expect(within(row).getByText("2 nvidia.com/gpu on ml.g5.xlarge (1 borrowed)")).toBeInTheDocument();
    expect(row).toHaveTextContent(`second: ${waiting}`);
  });

  it("says a team's use and queued jobs are unknown, and why, when the API could not read its queue", async () => {
    const reason = "the cluster's RBAC refuses the control plane's view role Kueue's clusterqueues.kueue.x-k8s.io: Forbidden (403)";
    const unread = { ...TEAM, admittedWorkloads: null, queueUnknown: reason };
    renderTab(TeamsTab, { api: fakeApi({ "GET /clusters/{clusterTag}/teams": { ...TEAMS, teams: [unread] } }).api, role: "viewer" });
    const row = (await screen.findByText("ml-a")).closest("tr")!;
    expect(within(row).getAllByText(`Unknown: ${reason}`)).toHaveLength(2);
    expect(row).not.toHaveTextContent("none");
  });

  it("creates a team with the chosen instance type and count", async () => {
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}/teams": TEAMS,
      "POST /clusters/{clusterTag}/teams": { status: 201, body: TEAM },
    });
    renderTab(TeamsTab, { api });
    await userEvent.click(await screen.findByRole("button", { name: "Create team" }));
    await userEvent.type(screen.getByRole("textbox", { name: /Team/ }), "ml-b");
    await userEvent.click(screen.getAllByRole("button", { name: "Create team" }).at(-1)!);
    const posted = calls.filter((call) => call.method === "POST");
    expect(posted.map((call) => call.body)).toEqual([{ team: "ml-b", allocations: [{ instanceType: "ml.g5.xlarge", count: 1 }] }]);
  });

  it("deletes a team's quota with the token of its plan", async () => {
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}/teams": TEAMS,
      "DELETE /clusters/{clusterTag}/teams/{team}": (call) => (call.query.dryRun ? PLAN_WITH_TOKEN : TEAM),
    });
    renderTab(TeamsTab, { api });
    await userEvent.click(await screen.findByRole("radio", { name: "Select ml-a" }));
    await userEvent.click(screen.getByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog");
    await userEvent.click(await within(dialog).findByRole("button", { name: "Delete quota" }));
    const deletes = calls.filter((call) => call.method === "DELETE");
    expect(deletes.map((call) => call.query)).toEqual([{ dryRun: true }, { confirmationToken: "token-1" }]);
  });
});

describe("TeamsTab namespace", () => {
  const UNREADY = { ...TEAM, namespaceReady: false, namespaceMissing: ["claim hyperpod-ns-ml-a/s3-claim (Pending)"] };

  it("shows whether each team's namespace is ready and what it lacks", async () => {
    const teams = { ...TEAMS, teams: [{ ...TEAM, namespaceReady: true }, { ...UNREADY, team: "ml-b" }] };
    renderTab(TeamsTab, { api: fakeApi({ "GET /clusters/{clusterTag}/teams": teams }).api, role: "viewer" });
    expect(within((await screen.findByText("ml-a")).closest("tr")!).getByText("Ready")).toBeInTheDocument();
    const row = screen.getByText("ml-b").closest("tr")!;
    expect(within(row).getByText(/Lacks claim hyperpod-ns-ml-a\/s3-claim \(Pending\)/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Prepare namespace" })).toBeNull();
  });

  it("prepares the chosen team's namespace again and links its operation", async () => {
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}/teams": { ...TEAMS, teams: [UNREADY] },
      "POST /clusters/{clusterTag}/teams/{team}/namespace": { status: 202, body: { operationId: "op-ns", status: "PENDING" } },
    });
    renderTab(TeamsTab, { api });
    await userEvent.click(await screen.findByRole("radio", { name: "Select ml-a" }));
    await userEvent.click(screen.getByRole("button", { name: "Prepare namespace" }));
    expect(await screen.findByRole("link", { name: "op-ns" })).toBeInTheDocument();
    expect(calls.filter((call) => call.method === "POST").map((call) => call.pathParams)).toEqual([{ clusterTag: "demo", team: "ml-a" }]);
  });
});

describe("TeamsTab change", () => {
  it("changes the chosen team's quota with the token of its plan", async () => {
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}/teams": TEAMS,
      "PATCH /clusters/{clusterTag}/teams/{team}": (call) => (call.query.dryRun ? PLAN_WITH_TOKEN : TEAM),
    });
    renderTab(TeamsTab, { api });
    await userEvent.click(await screen.findByRole("radio", { name: "Select ml-a" }));
    await userEvent.click(screen.getByRole("button", { name: "Change quota" }));
    const count = screen.getByDisplayValue("2");
    await userEvent.clear(count);
    await userEvent.type(count, "3");
    await userEvent.click(screen.getByRole("button", { name: "Review change" }));
    const dialog = await screen.findByRole("dialog");
    await userEvent.click(await within(dialog).findByRole("button", { name: "Change quota" }));
    const patches = calls.filter((call) => call.method === "PATCH");
    expect(patches.map((call) => call.query)).toEqual([{ dryRun: true }, { confirmationToken: "token-1" }]);
    expect(patches[1].body).toEqual({ allocations: [{ instanceType: "ml.g5.xlarge", count: 3 }], sharing: "LendAndBorrow" });
  });
});

describe("SchedulerPolicyPanel", () => {
  it("changes the scheduler policy with the token of its plan", async () => {
    const policy = { priorityClasses: [{ name: "training", weight: 50 }], fairShare: true, idleResourceSharing: true, status: "Created", version: 1 };
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}/teams": { ...TEAMS, schedulerPolicy: policy },
      "PUT /clusters/{clusterTag}/scheduler-policy": (call) => (call.query.dryRun ? PLAN_WITH_TOKEN : policy),
    });
    renderTab(TeamsTab, { api });
    const input = await screen.findByDisplayValue("training:50");
    await userEvent.clear(input);
    await userEvent.type(input, "training:50, inference:90");
    await userEvent.click(screen.getAllByRole("button", { name: "Save policy" })[0]);
    const dialog = await screen.findByRole("dialog");
    await userEvent.click(await within(dialog).findByRole("button", { name: "Save policy" }));
    const puts = calls.filter((call) => call.method === "PUT");
    expect(puts.map((call) => call.query)).toEqual([{ dryRun: true }, { confirmationToken: "token-1" }]);
    expect(puts[1].body).toEqual({ priorityClasses: [{ name: "training", weight: 50 }, { name: "inference", weight: 90 }] });
  });
});
