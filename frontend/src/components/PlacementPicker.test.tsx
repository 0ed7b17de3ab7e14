import createWrapper from "@cloudscape-design/components/test-utils/dom";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { fakeApi, renderPage } from "../test/fakeApi";
import { PlacementPicker, usePlacementOffer, type Placement, type TrainingPlan } from "./PlacementPicker";

// A page's first Cloudscape render can take seconds on a busy machine.

const PLAN = {
  trainingPlanArn: "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p5",
  name: "p5-week",
  status: "Active",
  instanceCount: 4,
  instanceType: "ml.p5.48xlarge",
  availabilityZone: "us-west-2b",
};
const P5 = {
  instanceType: "ml.p5.48xlarge",
  accelerator: "NVIDIA H100",
  gpus: 8,
  efaInterfaces: 32,
  vcpus: 192,
  memoryGib: 2048,
  deepHealthChecks: true,
  efaOnlyCapable: true,
  availabilityZones: ["us-west-2b"],
};
const REGION = {
  "GET /regions/{region}/availability-zones": { region: "us-west-2", availabilityZones: [{ name: "us-west-2a", zoneId: "usw2-az1" }] },
  "GET /regions/{region}/training-plans": { region: "us-west-2", trainingPlans: [PLAN] },
  "GET /regions/{region}/instance-types": { region: "us-west-2", availabilityZone: "us-west-2b", instanceTypes: [P5] },
};

function Harness({ onPlan }: { onPlan: (plan: TrainingPlan | undefined) => void }) {
  const [placement, setPlacement] = useState<Placement>({
    capacityType: "on-demand",
    trainingPlanArn: "",
    availabilityZone: "",
    instanceType: "",
  });
  const offer = usePlacementOffer("us-west-2", placement);
  return (
    <>
      <PlacementPicker
        region="us-west-2"
        value={placement}
        offer={offer}
        onChange={(change, plan) => {
          setPlacement((current) => ({ ...current, ...change }));
          onPlan(plan);
        }}
      />
      <output data-testid="placement">{JSON.stringify({ ...placement, type: offer.type?.instanceType })}</output>
    </>
  );
}

describe("the placement picker", { timeout: 30_000 }, () => {
  it("places a training plan's group in the plan's AZ on the plan's instance type", async () => {
    const { api, calls } = fakeApi(REGION);
    const plans: (TrainingPlan | undefined)[] = [];
    const { container } = render(
      renderPage({ api, role: "admin", route: "/", url: "/", element: <Harness onPlan={(plan) => plans.push(plan)} /> }),
    );
    await userEvent.click(await screen.findByRole("radio", { name: /Training plan/ }));
    const planSelect = createWrapper(container).findSelect();
    planSelect?.openDropdown();
    await waitFor(() => expect(planSelect?.findDropdown().findOptions()).toHaveLength(1));
    planSelect?.selectOptionByValue(PLAN.trainingPlanArn);
    await waitFor(() =>
      expect(JSON.parse(screen.getByTestId("placement").textContent ?? "{}")).toEqual({
        capacityType: "training-plan",
        trainingPlanArn: PLAN.trainingPlanArn,
        availabilityZone: "",
        instanceType: "ml.p5.48xlarge",
        type: "ml.p5.48xlarge",
      }),
    );
    expect(plans.at(-1)).toEqual(PLAN);
    expect(calls.find((call) => call.path === "/regions/{region}/instance-types")?.query).toEqual({ availabilityZone: "us-west-2b" });
  });

  it("clears the instance type when the capacity type changes, keeping the AZ", async () => {
    const { api } = fakeApi(REGION);
    const { container } = render(
      renderPage({ api, role: "admin", route: "/", url: "/", element: <Harness onPlan={() => undefined} /> }),
    );
    await screen.findByRole("radio", { name: /Spot/ });
    const [zoneSelect, typeSelect] = createWrapper(container).findAllSelects();
    zoneSelect.openDropdown();
    await waitFor(() => expect(zoneSelect.findDropdown().findOptions()).toHaveLength(1));
    zoneSelect.selectOptionByValue("us-west-2a");
    typeSelect.openDropdown();
    await waitFor(() => expect(typeSelect.findDropdown().findOptions()).toHaveLength(1));
    typeSelect.selectOptionByValue("ml.p5.48xlarge");
    await waitFor(() => expect(screen.getByTestId("placement").textContent).toContain('"instanceType":"ml.p5.48xlarge"'));
    await userEvent.click(screen.getByRole("radio", { name: /Spot/ }));
    expect(JSON.parse(screen.getByTestId("placement").textContent ?? "{}")).toEqual({
      capacityType: "spot",
      trainingPlanArn: "",
      availabilityZone: "us-west-2a",
      instanceType: "",
    });
  });
});
