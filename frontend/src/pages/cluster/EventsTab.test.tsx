import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import EventsTab, { EVENTS_PAGE_SIZE } from "./EventsTab";
import { fakeApi, type Call } from "../../test/fakeApi";
import { renderTab } from "./testing";

const NODE = "i-0aaaaaaaaaaaaaaa1";

const UNHEALTHY = {
  eventId: "e-2",
  clusterTag: "demo",
  kind: "NodeHealth",
  time: "2026-12-02T12:00:02Z",
  instanceId: NODE,
  instanceGroup: "workers",
  healthStatus: "Unhealthy",
  repairAction: "None",
  description: "NvidiaErrorTerminate",
};
const REPLACED = {
  eventId: "r-1",
  clusterTag: "demo",
  kind: "Remediation",
  time: "2026-12-02T12:00:03Z",
  instanceId: NODE,
  action: "replace",
  outcome: "started",
  operationId: "op-replace-1",
};
const IN_SERVICE = { eventId: "e-1", clusterTag: "demo", kind: "ClusterStateChange", time: "2026-12-02T12:00:00Z", clusterStatus: "InService" };

const ANSWERS = {
  // Two pages: "Load more" follows `continue`.
  "GET /clusters/{clusterTag}/events": (call: Call) =>
    call.query.continue === "page-2"
      ? { clusterTag: "demo", events: [IN_SERVICE] }
      : { clusterTag: "demo", events: [REPLACED, UNHEALTHY], continue: "page-2" },
  "GET /clusters/{clusterTag}/nodes/{nodeId}/history": { clusterTag: "demo", nodeId: NODE, events: [REPLACED, UNHEALTHY] },
};

describe("EventsTab", () => {
  it("lists a page of events, newest first, and loads the next page on demand", async () => {
    const { api, calls } = fakeApi(ANSWERS);
    renderTab(EventsTab, { api, role: "viewer" });
    const remediation = (await screen.findByText("replace: started")).closest("tr")!;
    expect(within(remediation).getByText("op-replace-1")).toBeInTheDocument();
    expect(screen.getByText("Unhealthy").closest("tr")).toHaveTextContent("NvidiaErrorTerminate");
    expect(screen.queryByText("InService")).toBeNull();
    expect(calls[0].query).toEqual({ limit: EVENTS_PAGE_SIZE });
    await userEvent.click(screen.getByRole("button", { name: "Load more" }));
    expect(await screen.findByText("InService")).toBeInTheDocument();
    expect(calls.at(-1)!.query).toEqual({ limit: EVENTS_PAGE_SIZE, continue: "page-2" });
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull();
  });

  it("opens a node's history from the list, and goes back to every event", async () => {
    const { api, calls } = fakeApi(ANSWERS);
    renderTab(EventsTab, { api });
    await userEvent.click((await screen.findAllByRole("link", { name: `History of ${NODE}` }))[0]);
    expect(await screen.findByText(`History of node ${NODE}`)).toBeInTheDocument();
    expect(screen.getByTestId("location")).toHaveTextContent(`node=${NODE}`);
    expect(calls.at(-1)!.pathParams).toEqual({ clusterTag: "demo", nodeId: NODE });
    await userEvent.click(screen.getByRole("button", { name: "All events" }));
    expect(await screen.findByText("Events")).toBeInTheDocument();
    expect(calls.at(-1)!.path).toBe("/clusters/{clusterTag}/events");
  });

  it("opens at a node's history from the URL", async () => {
    const { api, calls } = fakeApi(ANSWERS);
    renderTab(EventsTab, { api, search: `?tab=events&node=${NODE}` });
    expect(await screen.findByText(`History of node ${NODE}`)).toBeInTheDocument();
    expect(calls.map((call) => call.path)).toEqual(["/clusters/{clusterTag}/nodes/{nodeId}/history"]);
  });

  it("says why when the events cannot be read", async () => {
    const { api } = fakeApi({
      "GET /clusters/{clusterTag}/events": { status: 404, body: { message: "Cluster nope is not registered", code: "NotFound" } },
    });
    renderTab(EventsTab, { api });
    expect(await screen.findByText("Events could not be listed")).toBeInTheDocument();
  });
});
