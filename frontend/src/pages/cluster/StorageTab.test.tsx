import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import StorageTab from "./StorageTab";
import { fakeApi } from "../../test/fakeApi";
import { accepted, operationIn, renderTab } from "./testing";

describe("StorageTab", () => {
  it("shows the claims and bucket, and offers no configuration to a viewer", () => {
    renderTab(StorageTab, { api: fakeApi({}).api, role: "viewer" });
    expect(screen.getByText("s3-claim")).toBeInTheDocument();
    expect(screen.getByText("instantstart-demo-bucket")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Configure storage" })).toBeNull();
  });

  it("configures storage with only the fields set, after the plan; no FSx for an operator", async () => {
    const { api, calls } = fakeApi({
      "POST /clusters/{clusterTag}/storage": (call) =>
        call.query.dryRun
          ? { dryRun: true, actions: [{ action: "create", resource: "PersistentVolumeClaim", name: "data" }] }
          : { status: 202, body: accepted("op-storage") },
      "GET /operations/{operationId}": operationIn("op-storage", "SUCCEEDED"),
    });
    renderTab(StorageTab, { api, role: "operator" });
    await userEvent.click(screen.getByRole("button", { name: "Configure storage" }));
    expect(screen.getByTestId("location")).toHaveTextContent("action=configure");
    expect(screen.queryByText(/FSx for Lustre file system/)).toBeNull();
    await userEvent.type(screen.getByPlaceholderText("s3-claim"), "data");
    await userEvent.click(screen.getByRole("button", { name: "Review plan" }));
    const dialog = await screen.findByRole("dialog");
    await within(dialog).findByText("PersistentVolumeClaim");
    await userEvent.click(within(dialog).getByRole("button", { name: "Configure storage" }));
    await screen.findByText("Configure storage: done");
    expect(calls.filter((call) => call.method === "POST").map((call) => [call.query, call.body])).toEqual([
      [{ dryRun: true }, { claimName: "data" }],
      [{}, { claimName: "data" }],
    ]);
  }, 20_000);

  it("lets an admin add an FSx file system", async () => {
    const { api, calls } = fakeApi({ "POST /clusters/{clusterTag}/storage": { dryRun: true, actions: [] } });
    renderTab(StorageTab, { api, search: "?action=configure" });
    await userEvent.click(screen.getByRole("checkbox", { name: /FSx for Lustre file system/ }));
    await userEvent.click(screen.getByRole("button", { name: "Review plan" }));
    await screen.findByRole("dialog");
    expect(calls[0].body).toEqual({ fsx: {} });
  }, 20_000);
});
