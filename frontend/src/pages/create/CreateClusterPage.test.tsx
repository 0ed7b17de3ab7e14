import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import createWrapper from "@cloudscape-design/components/test-utils/dom";
import type { ReactNode } from "react";
import { fakeApi, LocationSearch, renderPage, type Call } from "../../test/fakeApi";
import CreateClusterPage from "./CreateClusterPage";
import { DEFAULTS, formFromQuery, hyperPodBody, queryFromForm } from "./form";

// A page's first Cloudscape render can take seconds on a busy machine.

function renderWizard(url: string, api: Parameters<typeof renderPage>[0]["api"], role: "admin" | "operator" = "admin") {
  const element: ReactNode = (
    <>
      <CreateClusterPage />
      <LocationSearch />
    </>
  );
  return render(renderPage({ api, role, route: "/clusters/create", url, element }));
}

const OFFERED: Record<string, string[]> = {
  "us-west-2a": ["ml.g5.8xlarge", "ml.g6.8xlarge"],
  "us-west-2d": ["ml.g6.8xlarge"],
};

function instanceType(name: string, zones: string[]) {
  return {
    instanceType: name,
    accelerator: "NVIDIA L4",
    gpus: 1,
    efaInterfaces: 0,
    vcpus: 32,
    memoryGib: 128,
    deepHealthChecks: false,
    efaOnlyCapable: false,
    availabilityZones: zones,
  };
}

const catalog = {
  "GET /clusters": { clusters: [] },
  "GET /regions": { regions: ["us-east-1", "us-west-2"] },
  "GET /regions/{region}/availability-zones": {
    region: "us-west-2",
    availabilityZones: [
      { name: "us-west-2a", zoneId: "usw2-az2" },
      { name: "us-west-2d", zoneId: "usw2-az4" },
    ],
  },
  "GET /regions/{region}/instance-types": (call: Call) => {
    const zone = String(call.query.availabilityZone);
    const instanceTypes = (OFFERED[zone] ?? []).map((name) => instanceType(name, [zone]));
    return { region: "us-west-2", availabilityZone: zone, instanceTypes };
  },
  "GET /regions/{region}/training-plans": { region: "us-west-2", trainingPlans: [] },
};

/** The error text of the form field labelled `label`, if it shows one. */
function fieldError(container: HTMLElement, label: string): string | undefined {
  const field = createWrapper(container)
    .findAllFormFields()
    .find((candidate) => candidate.findLabel()?.getElement().textContent === label);
  return field?.findError()?.getElement().textContent ?? undefined;
}

function optionValues(select: ReturnType<ReturnType<typeof createWrapper>["findSelect"]>): string[] {
  return (select?.findDropdown().findOptions() ?? []).map((option) => option.findLabel().getElement().textContent ?? "");
}

describe("the creation wizard", { timeout: 30_000 }, () => {
  it("offers the Region's AZs, then only the instance types offered in the chosen AZ", async () => {
    const { api, calls } = fakeApi(catalog);
    const { container } = renderWizard("/clusters/create?step=1&clusterTag=demo&region=us-west-2", api);
    const wrapper = createWrapper(container);
    await screen.findByText("Instance group", { selector: "h1 *, h1" });
    const [zoneSelect, typeSelect] = wrapper.findAllSelects();
    zoneSelect.openDropdown();
    await waitFor(() => expect(optionValues(zoneSelect)).toEqual(["us-west-2a", "us-west-2d"]));
    zoneSelect.selectOptionByValue("us-west-2d");
    typeSelect.openDropdown();
    await waitFor(() => expect(optionValues(typeSelect)).toEqual(["ml.g6.8xlarge"]));
    expect(calls.some((call) => call.query.availabilityZone === "us-west-2d")).toBe(true);
    typeSelect.selectOptionByValue("ml.g6.8xlarge");
    await waitFor(() => expect(screen.getByTestId("location").textContent).toContain("availabilityZone=us-west-2d"));
    expect(screen.getByTestId("location").textContent).toContain("instanceType=ml.g6.8xlarge");
  });

  it("leads the review with a failing pre-flight check and its fix, and holds Create until it is fixed", async () => {
    const checks = [
      { check: "quota: VPCs per Region", status: "pass", have: 4, need: 1 },
      {
        check: "quota: ml.g6.8xlarge for cluster usage",
        status: "fail",
        have: 0,
        need: 2,
        fix: "Request an increase at https://console.aws.amazon.com/servicequotas/home/services/sagemaker/quotas/L-1234",
      },
    ];
    const { api, calls } = fakeApi({
      ...catalog,
      "POST /clusters": { dryRun: true, actions: [{ action: "create", resource: "AWS::EKS::Cluster", name: "eks-cluster-demo" }], checks },
    });
    renderWizard(
      "/clusters/create?step=3&clusterTag=demo&region=us-west-2" +
        "&availabilityZone=us-west-2a&instanceType=ml.g6.8xlarge&instanceCount=2",
      api,
    );
    const lead = await screen.findByText("A pre-flight check fails: fix first");
    const alert = lead.closest('[role="alert"], [class*="awsui_alert"]') as HTMLElement;
    expect(within(alert).getByText("quota: ml.g6.8xlarge for cluster usage")).toBeInTheDocument();
    const quota = within(alert).getByRole("link", { name: /^open/ });
    expect(quota).toHaveAttribute("href", "https://console.aws.amazon.com/servicequotas/home/services/sagemaker/quotas/L-1234");
    const table = screen.getByRole("table", { name: "Pre-flight checks" });
    expect(within(table).getAllByRole("row")[1]).toHaveTextContent("fail");
    const create = screen.getByRole("button", { name: "Create cluster" });
    // Disabled with a reason: aria-disabled, so that the reason stays reachable by keyboard.
    expect(create).toHaveAttribute("aria-disabled", "true");
    await userEvent.click(create);
    expect(calls.filter((call) => call.method === "POST" && !call.query.dryRun)).toEqual([]);
  });

  it("shows the API's pre-flight checks on the review before anything is created", async () => {
    const dryRuns: Call[] = [];
    const { api } = fakeApi({
      ...catalog,
      "POST /clusters": (call: Call) => {
        dryRuns.push(call);
        const checks = [
          { check: "quota: ml.g6.8xlarge for cluster usage", status: "fail", have: 0, need: 2, fix: "Request a quota increase" },
          { check: "quota: VPCs per Region", status: "pass", have: 4, need: 1 },
        ];
        return { dryRun: true, actions: [{ action: "create", resource: "AWS::EKS::Cluster", name: "eks-cluster-demo" }], checks };
      },
    });
    renderWizard(
      "/clusters/create?step=3&clusterTag=demo&region=us-west-2" +
        "&availabilityZone=us-west-2a&instanceType=ml.g6.8xlarge&instanceCount=2",
      api,
    );
    const checks = await screen.findByRole("table", { name: "Pre-flight checks" });
    expect(within(checks).getByText("quota: ml.g6.8xlarge for cluster usage")).toBeInTheDocument();
    expect(within(checks).getByText("Request a quota increase")).toBeInTheDocument();
    expect(within(checks).getByText("fail")).toBeInTheDocument();
    expect(screen.getByText("eks-cluster-demo")).toBeInTheDocument();
    expect(dryRuns).toHaveLength(1);
    expect(dryRuns[0].query).toEqual({ dryRun: true });
    expect(dryRuns[0].body).toMatchObject({
      clusterTag: "demo",
      region: "us-west-2",
      hyperpod: { instanceType: "ml.g6.8xlarge", instanceCount: 2, availabilityZone: "us-west-2a", capacityType: "on-demand" },
    });
  });

  it("shows a refused request's field errors at their fields, opening the first step that has one", async () => {
    const problems = [
      { field: "clusterTag", problem: "String should match pattern '^[a-z][a-z0-9-]{1,20}$'", type: "string_pattern_mismatch" },
      { field: "hyperpod.instanceCount", problem: "Input should be less than or equal to 100", type: "less_than_equal" },
    ];
    const { api } = fakeApi({
      ...catalog,
      "POST /clusters": (call: Call) =>
        call.query.dryRun
          ? { dryRun: true, actions: [{ action: "create", resource: "AWS::EKS::Cluster", name: "eks-cluster-Demo" }], checks: [] }
          : { status: 400, body: { code: "InvalidRequest", message: "The request is not valid: ...", requestId: "req-3", details: { problems } } },
    });
    const { container } = renderWizard(
      "/clusters/create?step=3&clusterTag=Demo&region=us-west-2&availabilityZone=us-west-2a&instanceType=ml.g6.8xlarge&instanceCount=500",
      api,
    );
    await screen.findByText("eks-cluster-Demo");
    await userEvent.click(screen.getByRole("button", { name: "Create cluster" }));
    expect(await screen.findByText(problems[0].problem)).toBeInTheDocument();
    expect(fieldError(container, "Cluster tag")).toBe(problems[0].problem);
    expect(screen.queryByText(/The API refused the request/)).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByText(problems[1].problem);
    expect(fieldError(container, "Instance count")).toBe(problems[1].problem);
  });

  it("marks the fields a refused dry run names, and clears a field's error once it changes", async () => {
    const problem = "Input should be less than or equal to 100";
    const { api } = fakeApi({
      ...catalog,
      "POST /clusters": {
        status: 400,
        body: { code: "InvalidRequest", message: "The request is not valid: hyperpod.instanceCount: ...", requestId: "req-4", details: { problems: [{ field: "hyperpod.instanceCount", problem, type: "less_than_equal" }] } },
      },
    });
    const { container } = renderWizard(
      "/clusters/create?step=3&clusterTag=demo&region=us-west-2&availabilityZone=us-west-2a&instanceType=ml.g6.8xlarge&instanceCount=500",
      api,
    );
    await screen.findByText("The API refuses this request");
    await userEvent.click(screen.getByRole("button", { name: "Previous" }));
    await userEvent.click(screen.getByRole("button", { name: "Previous" }));
    await screen.findByText(problem);
    expect(fieldError(container, "Instance count")).toBe(problem);
    await userEvent.type(screen.getByRole("spinbutton", { name: /Instance count/ }), "{backspace}");
    expect(fieldError(container, "Instance count")).toBeUndefined();
  });

  it("offers an operator only the stage the operator role may run", async () => {
    const { api } = fakeApi(catalog);
    renderWizard("/clusters/create", api, "operator");
    expect(await screen.findByRole("radio", { name: /Storage stage/ })).toBeChecked();
    expect(screen.getAllByRole("radio")).toHaveLength(1);
  });
});

describe("the wizard's form", () => {
  it("round-trips through the URL, keeping only what differs from the defaults", () => {
    const form = { ...DEFAULTS, clusterTag: "demo", region: "us-west-2", dedicatedSubnet: true };
    const query = queryFromForm(form, 2);
    expect(query.toString()).toBe("step=2&clusterTag=demo&region=us-west-2&dedicatedSubnet=true");
    expect(formFromQuery(query)).toEqual(form);
  });

  it("sends a training plan's group without an AZ (the plan's is used)", () => {
    const body = hyperPodBody({
      ...DEFAULTS,
      capacityType: "training-plan",
      availabilityZone: "us-west-2a",
      trainingPlanArn: "arn:x",
      instanceType: "ml.p5.48xlarge",
    });
    expect(body.availabilityZone).toBeUndefined();
    expect(body.trainingPlanArn).toBe("arn:x");
  });
});
