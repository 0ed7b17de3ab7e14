/**
 * Training plans of a Region (`/training-plans?region=…`): the plans the account holds, and buying reserved capacity —
 * search the offerings for an instance type, count and duration, shown with their upfront fee, and reserve one through
 * the plan-then-confirm dialog, whose plan states the fee. A plan bought here is offered by the instance-group forms.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { useSearchParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { usePlannedAction } from "../cluster/plan";
import { formatTime } from "../operations/format";

type Offering = Schemas["TrainingPlanOfferingView"];
type Search = Schemas["OfferingSearch"];
const DEFAULT_REGION = "us-west-2";

/** `3072.00 USD`. */
export function price(offering: Offering): string {
  return `${offering.upfrontFee} ${offering.currencyCode}`;
}

export default function TrainingPlansPage() {
  const { api, identity } = useApp();
  const [params, setParams] = useSearchParams();
  const region = params.get("region") ?? DEFAULT_REGION;
  const regions = useResource((signal) => unwrap(api.GET("/regions", { signal })), [api]);
  const plans = useResource(
    (signal) => unwrap(api.GET("/regions/{region}/training-plans", { params: { path: { region } }, signal })),
    [api, region],
  );
  const [draft, setDraft] = useState({ instanceType: "ml.p5.48xlarge", instanceCount: "1", durationHours: "24" });
  const [search, setSearch] = useState<Search | null>(null);
  const [offerings, setOfferings] = useState<Offering[] | null>(null);
  const [searchError, setSearchError] = useState<unknown>(null);
  const [searching, setSearching] = useState(false);
  const [name, setName] = useState("");
  const { start, modal } = usePlannedAction(() => plans.reload());

  const find = async () => {
    const query = { instanceType: draft.instanceType.trim(), instanceCount: Number(draft.instanceCount), durationHours: Number(draft.durationHours) };
    setSearching(true);
    setSearchError(null);
    try {
      const found = await unwrap(api.GET("/regions/{region}/training-plan-offerings", { params: { path: { region }, query } }));
      setSearch(found.search);
      setOfferings(found.offerings);
    } catch (error) {
      setSearchError(error);
      setOfferings(null);
    } finally {
      setSearching(false);
    }
  };

  const reserve = (offering: Offering) => {
    if (!search) return;
    const body = { trainingPlanName: name.trim(), trainingPlanOfferingId: offering.trainingPlanOfferingId, search };
    const call = (confirmationToken?: string) =>
      unwrap(api.POST("/regions/{region}/training-plans", { params: { path: { region }, query: { confirmationToken } }, body }));
    start({
      header: `Reserve training plan ${body.trainingPlanName} for ${price(offering)}`,
      confirmLabel: `Pay ${price(offering)} and reserve`,
      plan: async () => (await call()) as Schemas["Plan"],
      run: async (token) => {
        const bought = (await call(token)) as Schemas["TrainingPlanCreated"];
        return { message: `${bought.trainingPlanName} reserved for ${bought.upfrontFee} ${bought.currencyCode}.` };
      },
    });
  };

  const regionOptions = (regions.data?.regions ?? [region]).map((value) => ({ value, label: value }));
  const mayBuy = identity.mayCall("POST /regions/{region}/training-plans");
  return (
    <SpaceBetween size="l">
      <Header
        variant="h1"
        description="Reserved capacity for instance groups: the Region's plans, and offerings to buy."
        actions={
          <Select
            ariaLabel="Region"
            selectedOption={{ value: region, label: region }}
            options={regionOptions}
            onChange={({ detail }) => setParams({ region: detail.selectedOption.value ?? DEFAULT_REGION })}
          />
        }
      >
        Training plans
      </Header>
      <ErrorAlert error={plans.error} header="The training plans could not be read" />
      <Table
        loading={plans.loading}
        loadingText="Loading training plans"
        items={plans.data?.trainingPlans ?? []}
        trackBy="trainingPlanArn"
        header={<Header counter={plans.data ? `(${plans.data.trainingPlans.length})` : undefined}>Plans in {region}</Header>}
        empty={<Box textAlign="center">No training plans in {region}.</Box>}
        columnDefinitions={[
          { id: "name", header: "Name", cell: (plan) => plan.name },
          { id: "status", header: "Status", cell: (plan) => plan.status },
          { id: "type", header: "Instance type", cell: (plan) => plan.instanceType ?? "-" },
          { id: "count", header: "Instances", cell: (plan) => plan.instanceCount },
          { id: "zone", header: "Availability Zone", cell: (plan) => plan.availabilityZone ?? "-" },
        ]}
      />
      <Container header={<Header description="Offerings are priced up front and expire: reserve soon after searching.">Buy reserved capacity</Header>}>
        <SpaceBetween size="m">
          <ColumnLayout columns={4}>
            <FormField label="Instance type">
              <Input value={draft.instanceType} onChange={({ detail }) => setDraft({ ...draft, instanceType: detail.value })} />
            </FormField>
            <FormField label="Instances">
              <Input type="number" value={draft.instanceCount} onChange={({ detail }) => setDraft({ ...draft, instanceCount: detail.value })} />
            </FormField>
            <FormField label="Duration (hours)">
              <Input type="number" value={draft.durationHours} onChange={({ detail }) => setDraft({ ...draft, durationHours: detail.value })} />
            </FormField>
            <FormField label="Plan name" description="Names the plan you reserve.">
              <Input value={name} placeholder="p5-two-days" onChange={({ detail }) => setName(detail.value)} />
            </FormField>
          </ColumnLayout>
          <Button onClick={() => void find()} loading={searching}>
            Search offerings
          </Button>
          <ErrorAlert error={searchError} header="The offerings could not be searched" />
          {offerings && (
            <Table
              items={offerings}
              trackBy="trainingPlanOfferingId"
              empty={<Box textAlign="center">No offering matches: try another duration or count.</Box>}
              columnDefinitions={[
                { id: "zone", header: "Availability Zone", cell: (o) => o.reservedCapacity.map((c) => c.availabilityZone).join(", ") },
                { id: "start", header: "Start", cell: (o) => formatTime(o.reservedCapacity[0]?.startTime) },
                { id: "end", header: "End", cell: (o) => formatTime(o.reservedCapacity[0]?.endTime) },
                { id: "hours", header: "Hours", cell: (o) => o.durationHours },
                { id: "price", header: "Upfront fee", cell: price },
                {
                  id: "reserve",
                  header: "",
                  cell: (o) => (
                    <Button disabled={!mayBuy || !name.trim()} onClick={() => reserve(o)} ariaLabel={`Reserve ${o.trainingPlanOfferingId}`}>
                      Reserve
                    </Button>
                  ),
                },
              ]}
            />
          )}
        </SpaceBetween>
      </Container>
      {modal}
    </SpaceBetween>
  );
}
