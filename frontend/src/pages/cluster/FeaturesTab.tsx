/**
 * Features tab (the advanced features panel): the live state of each feature (`GET …/features`). Toggles and fields
 * record only what the person touched; the PATCH body is built from those alone (explicit diff). The API's plan is
 * shown before applying (a disable is confirmed with its token); each feature's outcome, and a dependency refusal,
 * is shown in the feature's row.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import Multiselect from "@cloudscape-design/components/multiselect";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import Toggle from "@cloudscape-design/components/toggle";
import { useState } from "react";
import { ApiError, unwrap, type Schemas } from "../../api/client";
import { FEATURE_LABELS } from "../../api/contract.gen";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { forPeople } from "../../components/forPeople";
import { Status } from "../../components/status";
import { useResource } from "../../hooks/useResource";
import { useInstanceGroups } from "./groups";
import { usePlannedAction } from "./plan";
import type { ClusterTabProps } from "./tabs";

type Request = Schemas["UpdateFeaturesRequest"];
type FeatureName = keyof Request;
type FeatureState = Schemas["FeatureState"];
type ConfigMode = NonNullable<Schemas["TieredStorageFeature"]["configMode"]>;

/** What the person touched on one feature; absent fields were not touched. */
export interface Touched {
  enabled?: boolean;
  instanceGroups?: string[];
  configMode?: ConfigMode;
  percentage?: number;
}

/** The PATCH body: the touched features only, each with `enabled` (the API requires it) and its touched fields. */
export function patchBody(touched: Partial<Record<FeatureName, Touched>>, live: Record<string, FeatureState>): Request {
  const body: Record<string, Touched> = {};
  for (const [name, fields] of Object.entries(touched)) {
    if (fields) body[name] = { enabled: live[name]?.enabled ?? false, ...fields };
  }
  return body as Request;
}

/** Records a touch; a field set back to its live value is no longer touched (nothing to send for it). */
export function withTouch(
  touched: Partial<Record<FeatureName, Touched>>,
  name: FeatureName,
  fields: Touched,
  state: FeatureState,
): Partial<Record<FeatureName, Touched>> {
  const merged: Record<string, unknown> = { ...touched[name], ...fields };
  const liveValue = (key: string) => (key === "enabled" ? state.enabled : (state.settings?.[key] ?? undefined));
  for (const key of Object.keys(merged)) {
    if (JSON.stringify(merged[key]) === JSON.stringify(liveValue(key))) delete merged[key];
  }
  const next = { ...touched };
  if (Object.keys(merged).length) next[name] = merged as Touched;
  else delete next[name];
  return next;
}

/** A feature's label as it declares it (its field's title in the OpenAPI document); an unknown one by its name. */
const label = (name: FeatureName) => FEATURE_LABELS[name] ?? name;


const CONFIG_MODES = [
  { value: "default", label: "default", description: "HyperPod chooses the memory share" },
  { value: "custom", label: "custom", description: "A percentage of instance memory" },
];

interface Refusal {
  feature: string;
  message: string;
}

/** A dependency refusal (409 FeatureDependency) names its feature in the error details. */
function refusalOf(error: unknown): Refusal | null {
  if (error instanceof ApiError && typeof error.details?.feature === "string") {
    return { feature: error.details.feature, message: forPeople(error.message) };
  }
  return null;
}

export default function FeaturesTab({ cluster, reload }: ClusterTabProps) {
  const { api, identity } = useApp();
  const clusterTag = cluster.clusterTag;
  const features = useResource(
    (signal) => unwrap(api.GET("/clusters/{clusterTag}/features", { params: { path: { clusterTag } }, signal })),
    [api, clusterTag],
  );
  const groups = useInstanceGroups(clusterTag);
  const [touched, setTouched] = useState<Partial<Record<FeatureName, Touched>>>({});
  const [outcomes, setOutcomes] = useState<Outcomes>({ features: {}, applied: false });
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const refresh = () => {
    features.reload();
    reload();
  };
  const planned = usePlannedAction(refresh, () => {
    setOutcomes({ features: {}, applied: false });
    refresh();
  });
  const admin = identity.mayCall("PATCH /clusters/{clusterTag}/features");
  const live = features.data?.features ?? {};
  const names = Object.keys(live) as FeatureName[];
  const body = patchBody(touched, live);
  const changed = Object.keys(body).length > 0;

  const touch = (name: FeatureName, fields: Touched) => {
    setTouched((current) => withTouch(current, name, fields, live[name]));
    setRefusal(null);
  };

  /** One PATCH; its per-feature outcomes and a dependency refusal land in the rows. */
  const patch = async (query: { dryRun?: boolean; confirmationToken?: string }) => {
    try {
      const result = await unwrap(api.PATCH("/clusters/{clusterTag}/features", { params: { path: { clusterTag }, query }, body }));
      setOutcomes({ features: result.features, applied: !query.dryRun });
      return result;
    } catch (error) {
      setRefusal(refusalOf(error));
      throw error;
    }
  };

  const apply = () =>
    planned.start({
      header: "Apply feature changes",
      confirmLabel: "Apply",
      plan: () => patch({ dryRun: true }),
      run: async (confirmationToken) => {
        const result = await patch(confirmationToken ? { confirmationToken } : {});
        setTouched({});
        return result;
      },
    });

  const groupOptions = (groups.data ?? []).map((group) => ({ value: group.instanceGroupName, label: group.instanceGroupName }));

  const settingsOf = (name: FeatureName, state: FeatureState) => {
    const mine = touched[name] ?? {};
    if (name === "karpenter") {
      const chosen = mine.instanceGroups ?? (state.settings?.instanceGroups as string[] | null | undefined) ?? [];
      return (
        <Multiselect
          disabled={!admin}
          selectedOptions={groupOptions.filter((option) => chosen.includes(option.value))}
          options={groupOptions}
          placeholder="Instance groups to scale"
          ariaLabel="Karpenter instance groups"
          onChange={({ detail }) => touch(name, { instanceGroups: detail.selectedOptions.map((option) => option.value ?? "") })}
        />
      );
    }
    if (name === "tieredStorage") {
      const mode = mine.configMode ?? (state.settings?.configMode as ConfigMode | null | undefined) ?? "default";
      const percentage = mine.percentage ?? (state.settings?.percentage as number | null | undefined);
      return (
        <SpaceBetween size="xs" direction="horizontal">
          <Select
            disabled={!admin}
            ariaLabel="Tiered checkpointing memory mode"
            selectedOption={CONFIG_MODES.find((option) => option.value === mode) ?? null}
            options={CONFIG_MODES}
            onChange={({ detail }) => touch(name, { configMode: detail.selectedOption.value as ConfigMode })}
          />
          {mode === "custom" && (
            <Input
              disabled={!admin}
              ariaLabel="Tiered checkpointing memory percentage"
              type="number"
              inputMode="numeric"
              value={percentage == null ? "" : String(percentage)}
              onChange={({ detail }) => touch(name, { percentage: Number(detail.value) })}
            />
          )}
        </SpaceBetween>
      );
    }
    return "-";
  };

  return (
    <SpaceBetween size="m">
      <ErrorAlert error={features.error} header="Features could not be read" />
      <Table
        loading={features.loading}
        loadingText="Reading the features"
        items={names}
        trackBy={(name) => name}
        wrapLines
        empty={<Box textAlign="center">No feature.</Box>}
        header={
          <Header
            description="Only the features and fields you change are sent; the plan is shown before anything changes."
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh features" onClick={features.reload} />
                {admin && (
                  <>
                    <Button disabled={!changed} onClick={() => setTouched({})}>
                      Discard changes
                    </Button>
                    <Button variant="primary" disabled={!changed} onClick={apply}>
                      Review changes
                    </Button>
                  </>
                )}
              </SpaceBetween>
            }
          >
            Advanced features
          </Header>
        }
        columnDefinitions={[
          { id: "name", header: "Feature", cell: label },
          {
            id: "enabled",
            header: "Enabled",
            cell: (name) => {
              const state = live[name];
              const checked = touched[name]?.enabled ?? state.enabled;
              return (
                <Toggle
                  checked={checked}
                  disabled={!admin || (!state.available && !state.enabled)}
                  ariaLabel={`${label(name)} enabled`}
                  onChange={({ detail }) => touch(name, { enabled: detail.checked })}
                >
                  {touched[name] ? "changed" : ""}
                </Toggle>
              );
            },
          },
          {
            id: "state",
            header: "State",
            cell: (name) => (
<Status value={live[name].state} detail={live[name].status} />
            ),
          },
          { id: "settings", header: "Settings", cell: (name) => settingsOf(name, live[name]) },
          { id: "requires", header: "Requires", cell: (name) => live[name].requires?.join(", ") || "-" },
          { id: "resources", header: "Resources", cell: (name) => live[name].resources?.join(", ") || "-" },
          { id: "outcome", header: "Outcome", cell: (name) => <Outcome name={name} state={live[name]} outcome={outcomes.features[name]} applied={outcomes.applied} refusal={refusal} /> },
        ]}
      />
      {planned.modal}
    </SpaceBetween>
  );
}

/** The last PATCH's per-feature outcomes: planned (a dry run) or applied (its operation running until it settles). */
interface Outcomes {
  features: Record<string, Schemas["FeatureOutcome"]>;
  applied: boolean;
}

/**
 * In the feature's row: its dependency refusal, else the last PATCH's outcome — pending while only planned, in progress
 * once applied (nothing is done until its operation ends) — else its live message.
 */
function Outcome(props: { name: string; state: FeatureState; outcome?: Schemas["FeatureOutcome"]; applied: boolean; refusal: Refusal | null }) {
  const { name, state, outcome, applied, refusal } = props;
  if (refusal?.feature === name) return <StatusIndicator type="error">{refusal.message}</StatusIndicator>;
  if (outcome) {
    const unchanged = outcome.outcome === "unchanged";
    return (
      <StatusIndicator type={unchanged ? "info" : applied ? "in-progress" : "pending"}>
        {unchanged ? "unchanged" : `${applied ? "being" : "would be"} ${outcome.outcome}`}
        {outcome.message ? `: ${forPeople(outcome.message)}` : ""}
      </StatusIndicator>
    );
  }
  return state.message ? forPeople(state.message) : "-";
}
