/** The wizard's first step: what to run (the whole pipeline or one stage), and for which cluster. */
import FormField from "@cloudscape-design/components/form-field";
import Input from "@cloudscape-design/components/input";
import RadioGroup from "@cloudscape-design/components/radio-group";
import Select, { type SelectProps } from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { allPages, useResource } from "../../hooks/useResource";
import { KUBERNETES_VERSIONS, SCOPES, scopeOf, type CreateForm, type FieldErrors, type KubernetesVersion, type Scope } from "./form";
import { regionName, regionOption } from "../../components/regions";

export interface StepProps {
  form: CreateForm;
  update: (change: Partial<CreateForm>) => void;
  /** The API's problems with the form's fields, shown at each field. */
  errors?: FieldErrors;
}

/** The option of `options` whose value is `value`, or none (Cloudscape selects take the option object). */
export function selected(options: SelectProps.Option[], value: string): SelectProps.Option | null {
  return options.find((option) => option.value === value) ?? null;
}

export function ClusterStep({ form, update, errors }: StepProps) {
  const { identity } = useApp();
  const scopes = SCOPES.filter((choice) => identity.mayCall(choice.route));
  return (
    <SpaceBetween size="l">
      <FormField label="What to run">
        <RadioGroup
          value={form.scope}
          onChange={({ detail }) => update({ scope: detail.value as Scope, clusterTag: "", region: "" })}
          items={scopes.map((choice) => ({ value: choice.scope, label: choice.label, description: choice.description }))}
        />
      </FormField>
      {scopeOf(form).creates ? <NewCluster form={form} update={update} errors={errors} /> : <ExistingCluster form={form} update={update} errors={errors} />}
    </SpaceBetween>
  );
}

function NewCluster({ form, update, errors = {} }: StepProps) {
  const { api } = useApp();
  const regions = useResource((signal) => unwrap(api.GET("/regions", { signal })), [api]);
  const regionOptions = (regions.data?.regions ?? []).map(regionOption);
  const versionOptions = KUBERNETES_VERSIONS.map((version) => ({ value: version, label: version }));
  return (
    <SpaceBetween size="l">
      <ErrorAlert error={regions.error} header="Regions could not be listed" />
      <FormField
        label="Cluster tag"
        description="Short name; resources are named from it (eks-cluster-<tag>)."
        errorText={errors.clusterTag}
      >
        <Input value={form.clusterTag} onChange={({ detail }) => update({ clusterTag: detail.value })} placeholder="demo" />
      </FormField>
      <FormField label="Region" errorText={errors.region}>
        <Select
          selectedOption={selected(regionOptions, form.region)}
          onChange={({ detail }) =>
            update({ region: detail.selectedOption.value ?? "", availabilityZone: "", instanceType: "" })
          }
          options={regionOptions}
          filteringType="auto"
          statusType={regions.loading ? "loading" : "finished"}
          placeholder="Choose a Region"
        />
      </FormField>
      <FormField label="Kubernetes version" errorText={errors.kubernetesVersion}>
        <Select
          selectedOption={selected(versionOptions, form.kubernetesVersion)}
          onChange={({ detail }) => update({ kubernetesVersion: detail.selectedOption.value as KubernetesVersion })}
          options={versionOptions}
        />
      </FormField>
      <FormField
        label="VPC CIDR"
        description="A private /16 to /18. Leave empty to pick a free 10.N.0.0/16."
        errorText={errors.vpcCidr}
      >
        <Input
          value={form.vpcCidr}
          onChange={({ detail }) => update({ vpcCidr: detail.value })}
          placeholder="10.90.0.0/16"
        />
      </FormField>
    </SpaceBetween>
  );
}

function ExistingCluster({ form, update, errors = {} }: StepProps) {
  const { api } = useApp();
  const clusters = useResource(
    (signal) =>
      allPages<Schemas["ClusterView"]>(async (next) => {
        const page = await unwrap(api.GET("/clusters", { params: { query: { limit: 100, continue: next } }, signal }));
        return { items: page.clusters, next: page.continue };
      }),
    [api],
  );
  const options = (clusters.data ?? []).map((cluster) => ({
    value: cluster.clusterTag,
    label: cluster.clusterTag,
    description: `${regionName(cluster.region)} · ${cluster.status} · stages done: ${cluster.stagesDone.join(", ") || "none"}`,
    tags: [cluster.region],
  }));
  return (
    <SpaceBetween size="l">
      <ErrorAlert error={clusters.error} header="Clusters could not be listed" />
      <FormField label="Cluster" errorText={errors.clusterTag}>
        <Select
          selectedOption={selected(options, form.clusterTag)}
          onChange={({ detail }) =>
            update({ clusterTag: detail.selectedOption.value ?? "", region: detail.selectedOption.tags?.[0] ?? "" })
          }
          options={options}
          filteringType="auto"
          statusType={clusters.loading ? "loading" : "finished"}
          placeholder="Choose a cluster"
          empty="No clusters yet: create one with the EKS stage first."
        />
      </FormField>
    </SpaceBetween>
  );
}
