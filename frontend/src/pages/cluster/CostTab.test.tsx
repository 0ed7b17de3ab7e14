import { screen } from "@testing-library/react";
import CostTab from "./CostTab";
import { fakeApi } from "../../test/fakeApi";
import { renderTab } from "./testing";

const COST = {
  clusterTag: "demo",
  region: "us-west-2",
  at: "2026-12-02T12:00:00Z",
  currency: "USD",
  onDemandCost: 18.36,
  groups: [
    {
      instanceGroupName: "workers",
      instanceType: "ml.g5.8xlarge",
      capacity: "on-demand",
      runningInstances: 2,
      instanceHours: 6,
      onDemandHourlyPrice: 3.06,
      onDemandCost: 18.36,
      note: null,
    },
    {
      instanceGroupName: "cheap",
      instanceType: "ml.g6.4xlarge",
      capacity: "spot",
      runningInstances: 1,
      instanceHours: 3,
      onDemandHourlyPrice: null,
      onDemandCost: null,
      note: "Spot capacity: billed at the Spot rate, not priced here.",
    },
  ],
};

describe("CostTab", () => {
  it("prices on-demand groups and labels spot capacity without a price", async () => {
    renderTab(CostTab, { api: fakeApi({ "GET /clusters/{clusterTag}/cost": COST }).api, role: "viewer" });
    expect(await screen.findByText("workers")).toBeInTheDocument();
    expect(screen.getAllByText("$18.36")).toHaveLength(1);
    expect(screen.getByText("$3.06")).toBeInTheDocument();
    expect(screen.getByText("Spot")).toBeInTheDocument();
    expect(screen.getByText("Spot capacity: billed at the Spot rate, not priced here.")).toBeInTheDocument();
    expect(screen.getByText("($18.36 on demand)")).toBeInTheDocument();
  });
});
