import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import SoftwareTab from "./SoftwareTab";
import { fakeApi, type Answers } from "../../test/fakeApi";
import { accepted, PLAN_WITH_TOKEN, renderTab } from "./testing";

const ROUTES: Answers = {
  "GET /clusters/{clusterTag}/instance-groups": {
    clusterTag: "demo",
    hyperPodClusterName: "hp",
    hyperPodStatus: "InService",
    instanceGroups: [
      { instanceGroupName: "workers", status: "InService", currentCount: 1, targetCount: 1, capacityType: "on-demand", deepHealthChecks: false, imageReleaseVersion: "2025.1" },
    ],
  },
};

describe("SoftwareTab", () => {
  it("shows each group's AMI release and offers the update to an admin only", async () => {
    renderTab(SoftwareTab, { api: fakeApi(ROUTES).api, role: "operator" });
    expect((await screen.findByText("workers")).closest("tr")).toHaveTextContent("2025.1");
    expect(screen.queryByRole("button", { name: "Review update" })).toBeNull();
  });

  it("updates the software after its plan, confirmed with the token", async () => {
    const { api, calls } = fakeApi({
      ...ROUTES,
      "POST /clusters/{clusterTag}/software-update": (call) =>
        call.query.dryRun ? PLAN_WITH_TOKEN : { status: 202, body: accepted("op-ami") },
    });
    renderTab(SoftwareTab, { api });
    await screen.findByText("workers");
    await userEvent.click(screen.getByRole("button", { name: "Review update" }));
    const dialog = await screen.findByRole("dialog");
    await within(dialog).findByText("Confirm with the token.");
    await userEvent.click(within(dialog).getByRole("button", { name: "Update software" }));
    await screen.findByRole("link", { name: "op-ami" });
    const posts = calls.filter((call) => call.method === "POST");
    expect(posts.map((call) => [call.query, call.body])).toEqual([
      [{ dryRun: true }, {}],
      [{ confirmationToken: "token-1" }, {}],
    ]);
  }, 20_000);
});
