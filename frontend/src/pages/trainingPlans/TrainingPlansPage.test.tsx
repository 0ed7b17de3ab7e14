import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fakeApi, renderPage } from "../../test/fakeApi";
import TrainingPlansPage from "./TrainingPlansPage";

const SEARCH = { instanceType: "ml.p5.48xlarge", instanceCount: 2, durationHours: 48 };
const OFFERING = {
  trainingPlanOfferingId: "tpo-abc",
  upfrontFee: "3072.00",
  currencyCode: "USD",
  durationHours: 48,
  reservedCapacity: [
    { instanceType: "ml.p5.48xlarge", instanceCount: 2, availabilityZone: "us-west-2a", startTime: "2026-12-06T00:00:00Z", endTime: "2026-12-08T00:00:00Z" },
  ],
};
const PLAN = {
  dryRun: true,
  actions: [{ action: "create", resource: "TrainingPlan", name: "p5-two-days", detail: "upfront fee 3072.00 USD" }],
  confirmationToken: "tok-1",
  message: "Reserving p5-two-days costs 3072.00 USD up front and cannot be undone.",
};

function answers() {
  return fakeApi({
    "GET /regions": { regions: ["us-west-2"] },
    "GET /regions/{region}/training-plans": { region: "us-west-2", trainingPlans: [] },
    "GET /regions/{region}/training-plan-offerings": { region: "us-west-2", search: SEARCH, offerings: [OFFERING] },
    "POST /regions/{region}/training-plans": (call) =>
      (call.query as { confirmationToken?: string }).confirmationToken
        ? { status: 201, body: { trainingPlanArn: "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p5-two-days", trainingPlanName: "p5-two-days", upfrontFee: "3072.00", currencyCode: "USD", dryRun: false } }
        : PLAN,
  });
}

describe("TrainingPlansPage", () => {
  it("shows offerings with their price and reserves one only after the plan stating the fee is confirmed", async () => {
    const fake = answers();
    render(renderPage({ api: fake.api, role: "admin", route: "/training-plans", url: "/training-plans?region=us-west-2", element: <TrainingPlansPage /> }));
    await userEvent.type(screen.getByLabelText("Plan name"), "p5-two-days");
    await userEvent.click(screen.getByRole("button", { name: "Search offerings" }));
    expect(await screen.findByText("3072.00 USD")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Reserve tpo-abc" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText(/costs 3072.00 USD up front/)).toBeInTheDocument();
    const posts = () => fake.calls.filter((call) => call.method === "POST");
    expect(posts()).toHaveLength(1);
    expect(posts()[0].query).toMatchObject({ confirmationToken: undefined });
    expect(posts()[0].body).toMatchObject({ trainingPlanName: "p5-two-days", trainingPlanOfferingId: "tpo-abc", search: SEARCH });
    await userEvent.click(within(dialog).getByRole("button", { name: "Pay 3072.00 USD and reserve" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(posts().at(-1)?.query).toMatchObject({ confirmationToken: "tok-1" });
    // The plans are read again, to show the one bought.
    expect(fake.calls.filter((call) => call.path === "/regions/{region}/training-plans" && call.method === "GET")).toHaveLength(2);
  });

  it("does not let a viewer reserve", async () => {
    const fake = answers();
    render(renderPage({ api: fake.api, role: "viewer", route: "/training-plans", url: "/training-plans", element: <TrainingPlansPage /> }));
    await userEvent.type(screen.getByLabelText("Plan name"), "p5");
    await userEvent.click(screen.getByRole("button", { name: "Search offerings" }));
    await screen.findByText("3072.00 USD");
    expect(screen.getByRole("button", { name: "Reserve tpo-abc" })).toBeDisabled();
  });
});
