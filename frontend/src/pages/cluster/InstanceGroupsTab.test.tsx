import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import InstanceGroupsTab from "./InstanceGroupsTab";
import { fakeApi, type Answers, type Call } from "../../test/fakeApi";
import { accepted, operationIn, PLAN_WITH_TOKEN, renderTab } from "./testing";

const GROUP = {
  instanceGroupName: "workers",
  status: "InService",
  currentCount: 2,
  targetCount: 2,
  capacityType: "on-demand",
  deepHealthChecks: false,
  instanceType: "ml.g6.4xlarge",
};

const ROUTES: Answers = {
  "GET /clusters/{clusterTag}/instance-groups": {
    clusterTag: "demo",
    hyperPodClusterName: "hp-cluster-demo",
    hyperPodStatus: "InService",
    instanceGroups: [GROUP],
  },
  "GET /regions/{region}/availability-zones": { region: "us-west-2", availabilityZones: [{ name: "us-west-2c", zoneId: "usw2-az3" }] },
  "GET /regions/{region}/instance-types": {
    region: "us-west-2",
    availabilityZone: "us-west-2c",
    instanceTypes: [
      {
        instanceType: "ml.g6.4xlarge",
        accelerator: "L4",
        gpus: 1,
        efaInterfaces: 0,
        vcpus: 16,
        memoryGib: 64,
        deepHealthChecks: false,
        efaOnlyCapable: false,
        availabilityZones: ["us-west-2c"],
      },
    ],
  },
};

function groupReads(calls: Call[]): Call[] {
  return calls.filter((call) => call.method === "GET" && call.path === "/clusters/{clusterTag}/instance-groups");
}

async function choose(label: string, option: string) {
  await userEvent.click(screen.getByRole("button", { name: new RegExp(label) }));
  await userEvent.click(await screen.findByRole("option", { name: new RegExp(option) }));
}

describe("InstanceGroupsTab", () => {
  it("lists the groups and hides every write action from an operator", async () => {
    renderTab(InstanceGroupsTab, { api: fakeApi(ROUTES).api, role: "operator" });
    const row = (await screen.findByText("workers")).closest("tr")!;
    expect(row).toHaveTextContent("2 / 2");
    expect(row).toHaveTextContent("on-demand");
    expect(screen.queryByRole("button", { name: "Add instance group" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete" })).toBeNull();
  });

  it("adds a spot group from the types offered in the chosen AZ, after the plan's pre-flight checks", async () => {
    const { api, calls } = fakeApi({
      ...ROUTES,
      "POST /clusters/{clusterTag}/instance-groups": (call) =>
        call.query.dryRun
          ? {
              dryRun: true,
              actions: [{ action: "create", resource: "instance group", name: "spot-g6" }],
              checks: [{ check: "quota: ml.g6.4xlarge for spot usage", status: "pass", need: 1, have: 4 }],
            }
          : { status: 202, body: accepted("op-add") },
    });
    renderTab(InstanceGroupsTab, { api, search: "?tab=instance-groups&action=add" });
    await userEvent.type(await screen.findByPlaceholderText("spot-g6"), "spot-g6");
    await userEvent.click(screen.getByRole("radio", { name: /Spot/ }));
    await choose("Choose an Availability Zone", "us-west-2c");
    await waitFor(() => expect(calls.some((call) => call.path === "/regions/{region}/instance-types")).toBe(true));
    expect(calls.find((call) => call.path === "/regions/{region}/instance-types")?.query).toEqual({ availabilityZone: "us-west-2c" });
    await choose("Choose an instance type", "ml.g6.4xlarge");
    await userEvent.click(screen.getByRole("button", { name: "Review plan" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("quota: ml.g6.4xlarge for spot usage")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Add instance group" }));
    await screen.findByRole("link", { name: "op-add" });
    const posts = calls.filter((call) => call.method === "POST");
    const body = { instanceGroupName: "spot-g6", instanceType: "ml.g6.4xlarge", instanceCount: 1, capacityType: "spot", availabilityZone: "us-west-2c" };
    expect(posts.map((call) => [call.query, call.body])).toEqual([
      [{ dryRun: true }, body],
      [{}, body],
    ]);
    expect(screen.getByTestId("location")).toHaveTextContent("?tab=instance-groups");
  }, 30_000);

  it("refuses to add when a pre-flight check fails", async () => {
    const { api } = fakeApi({
      ...ROUTES,
      "POST /clusters/{clusterTag}/instance-groups": {
        dryRun: true,
        actions: [],
        checks: [{ check: "quota: ml.g6.4xlarge", status: "fail", fix: "Raise the quota." }],
      },
    });
    renderTab(InstanceGroupsTab, { api, search: "?action=add" });
    await userEvent.type(await screen.findByPlaceholderText("spot-g6"), "more");
    await choose("Choose an Availability Zone", "us-west-2c");
    await choose("Choose an instance type", "ml.g6.4xlarge");
    await userEvent.click(screen.getByRole("button", { name: "Review plan" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("Raise the quota.")).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Add instance group" })).toBeDisabled();
  }, 30_000);

  it("scales down with only the count sent, confirmed with the token of the plan", async () => {
    const { api, calls } = fakeApi({
      ...ROUTES,
      "PATCH /clusters/{clusterTag}/instance-groups/{name}": (call) =>
        call.query.dryRun
          ? { changes: { instanceCount: "updated" }, ...PLAN_WITH_TOKEN }
          : { status: 202, body: { changes: { instanceCount: "updated" }, message: "Scaling.", operationId: "op-scale" } },
    });
    renderTab(InstanceGroupsTab, { api, search: "?scale=workers" });
    const count = await screen.findByRole("spinbutton", { name: "Target count" });
    await userEvent.clear(count);
    await userEvent.type(count, "1");
    await userEvent.click(screen.getByRole("button", { name: "Review scaling" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("i-0123456789abcdef0")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Scale" }));
    await screen.findByRole("link", { name: "op-scale" });
    const patches = calls.filter((call) => call.method === "PATCH");
    expect(patches.map((call) => [call.query, call.body])).toEqual([
      [{ dryRun: true }, { instanceCount: 1 }],
      [{ confirmationToken: "token-1" }, { instanceCount: 1 }],
    ]);
  });

  it("shows what a scale's dry run answered it changes, not 'No action'", async () => {
    const { api } = fakeApi({
      ...ROUTES,
      "PATCH /clusters/{clusterTag}/instance-groups/{name}": { changes: { instanceCount: "updated" }, actions: [], message: "Scaling adds 1 node." },
    });
    renderTab(InstanceGroupsTab, { api, search: "?scale=workers" });
    const count = await screen.findByRole("spinbutton", { name: "Target count" });
    await userEvent.clear(count);
    await userEvent.type(count, "3");
    await userEvent.click(screen.getByRole("button", { name: "Review scaling" }));
    const dialog = await screen.findByRole("dialog");
    const changes = await within(dialog).findByRole("table", { name: "Changes" });
    expect(within(changes).getByText("instanceCount")).toBeInTheDocument();
    expect(within(changes).getByText("updated")).toBeInTheDocument();
    expect(within(dialog).queryByText("No action.")).toBeNull();
  });

  it("deletes a group after showing its plan", async () => {
    const { api, calls } = fakeApi({
      ...ROUTES,
      "DELETE /clusters/{clusterTag}/instance-groups/{name}": (call) =>
        call.query.dryRun ? PLAN_WITH_TOKEN : { status: 202, body: accepted("op-delete") },
    });
    renderTab(InstanceGroupsTab, { api });
    await userEvent.click(await screen.findByRole("radio", { name: "Select workers" }));
    await userEvent.click(screen.getByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog");
    await within(dialog).findByText("Confirm with the token.");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete" }));
    await screen.findByRole("link", { name: "op-delete" });
    expect(calls.filter((call) => call.method === "DELETE").map((call) => call.query)).toEqual([
      { dryRun: true },
      { confirmationToken: "token-1" },
    ]);
  });

  it("follows a scale to its failure on the tab: the flash says so, announced, offers Resume, and the groups are re-read", async () => {
    const failure = { code: "CapacityError", message: "Insufficient capacity for ml.g6.4xlarge.", step: "Scale Instance Group" };
    let resumed = false;
    let fail: () => void = () => undefined;
    const failing = new Promise<void>((resolve) => (fail = resolve));
    const { api, calls } = fakeApi({
      ...ROUTES,
      "PATCH /clusters/{clusterTag}/instance-groups/{name}": (call) =>
        call.query.dryRun
          ? { changes: { instanceCount: "updated" }, actions: [] }
          : { status: 202, body: { changes: { instanceCount: "updated" }, message: "Scaling.", operationId: "op-scale" } },
      "GET /operations/{operationId}": () => operationIn("op-scale", "RUNNING"),
      "GET /operations/{operationId}/wait": async () =>
        resumed ? operationIn("op-scale", "SUCCEEDED") : failing.then(() => operationIn("op-scale", "FAILED", failure)),
      "POST /operations/{operationId}/resume": () => {
        resumed = true;
        return { status: 202, body: accepted("op-scale") };
      },
    });
    renderTab(InstanceGroupsTab, { api, search: "?scale=workers" });
    const count = await screen.findByRole("spinbutton", { name: "Target count" });
    await userEvent.clear(count);
    await userEvent.type(count, "3");
    await userEvent.click(screen.getByRole("button", { name: "Review scaling" }));
    const dialog = await screen.findByRole("dialog");
    await waitFor(() => expect(within(dialog).getByRole("button", { name: "Scale" })).toBeEnabled());
    await userEvent.click(within(dialog).getByRole("button", { name: "Scale" }));

    const running = await screen.findByText("Scale instance group workers to 3");
    expect(running.closest('[role="status"]')).not.toBeNull();
    const readsBefore = groupReads(calls).length;
    fail();
    const failed = await screen.findByText('Scale instance group workers to 3: failed in step "Scale Instance Group"');
    const flash = failed.closest('[role="alert"]') as HTMLElement;
    expect(flash).not.toBeNull();
    expect(within(flash).getByText(/Insufficient capacity for ml.g6.4xlarge/)).toBeInTheDocument();
    expect(screen.queryByText(/Scale instance group workers to 3$/)).toBeNull();
    await waitFor(() => expect(groupReads(calls)).toHaveLength(readsBefore + 1));

    await userEvent.click(within(flash).getByRole("button", { name: "Resume" }));
    const done = await screen.findByText("Scale instance group workers to 3: done");
    expect(done.closest('[role="status"]')).not.toBeNull();
    expect(calls.filter((call) => call.method === "POST").map((call) => call.pathParams)).toEqual([{ operationId: "op-scale" }]);
  });
});
