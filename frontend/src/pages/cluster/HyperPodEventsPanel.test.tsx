import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import EventsTab from "./EventsTab";
import { fakeApi } from "../../test/fakeApi";
import { renderTab } from "./testing";

const NODE = "i-0aaaaaaaaaaaaaaa1";
const OPERATION = "0123abcd-0123-4abc-8def-0123456789ab";
const PASSED = {
  source: "hyperpod" as const,
  eventId: "h-1",
  time: "2026-12-02T12:00:05Z",
  resourceType: "Instance",
  level: "Info",
  description: `Instance ${NODE} passed its deep health checks`,
  instanceGroup: "workers",
  nodeId: NODE,
  operationId: OPERATION,
};

const NOT_READY = {
  source: "kubernetes" as const,
  eventId: "uid-1",
  time: "2026-12-02T12:00:06Z",
  level: "Warning",
  description: "Node is not ready",
  nodeId: NODE,
  object: `Node/hyperpod-${NODE}`,
  reason: "NodeNotReady",
  namespace: "default",
  count: 3,
};

describe("HyperPodEventsPanel", () => {
  it("shows both sources' events in one table with a source column", async () => {
    const { api } = fakeApi({
      "GET /clusters/{clusterTag}/events": { clusterTag: "demo", events: [] },
      "GET /clusters/{clusterTag}/hyperpod-events": { clusterTag: "demo", events: [NOT_READY, PASSED] },
    });
    renderTab(EventsTab, { api });
    const kubernetes = (await screen.findByText("NodeNotReady: Node is not ready")).closest("tr")!;
    expect(within(kubernetes).getByText("Kubernetes")).toBeInTheDocument();
    expect(within(kubernetes).getByText(`Node/hyperpod-${NODE}`)).toBeInTheDocument();
    const hyperpod = screen.getByText(PASSED.description).closest("tr")!;
    expect(within(hyperpod).getByText("HyperPod")).toBeInTheDocument();
  });


  it("lists HyperPod's cluster events and filters them by the URL's node, sending only whole ids", async () => {
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}/events": { clusterTag: "demo", events: [] },
      "GET /clusters/{clusterTag}/hyperpod-events": { clusterTag: "demo", events: [PASSED] },
    });
    renderTab(EventsTab, { api, search: `?hpOperation=${OPERATION}` });
    const row = (await screen.findByText(PASSED.description)).closest("tr")!;
    expect(within(row).getByText("Info")).toBeInTheDocument();
    await userEvent.type(screen.getByRole("textbox", { name: "Node" }), NODE);
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(`hpNode=${NODE}`));
    const queries = calls.filter((call) => call.path.endsWith("/hyperpod-events")).map((call) => call.query);
    expect(queries[0]).toEqual({ limit: 50, operationId: OPERATION });
    expect(queries.at(-1)).toEqual({ limit: 50, operationId: OPERATION, nodeId: NODE });
    // A partial id is never sent: only the short (8) and long (17) hex forms are ids.
    expect(queries.map((query) => query.nodeId).filter((sent) => sent && ![10, 19].includes(String(sent).length))).toEqual([]);
  });
});
