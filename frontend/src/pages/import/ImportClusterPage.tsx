/** Import an existing EKS (and HyperPod) cluster: the API's plan first, then the import; admins only. */
import Alert from "@cloudscape-design/components/alert";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import { useEffect, useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { selected } from "../create/ClusterStep";
import { PlanDetails } from "../cluster/PlanDetails";
import { isAccepted } from "../create/form";
import { regionOption } from "../../components/regions";

const FIELDS = ["clusterTag", "region", "eksClusterName", "hyperPodClusterName"] as const;
type Field = (typeof FIELDS)[number];

export default function ImportClusterPage() {
  const { api, identity, notify } = useApp();
  const navigate = useNavigate();
  const [query, setQuery] = useSearchParams();
  // The fields live in state (typing stays smooth) and are mirrored into the URL, so the form is a permalink.
  const [fields, setFields] = useState(
    () => new URLSearchParams(FIELDS.flatMap((field) => (query.get(field) ? [[field, query.get(field) ?? ""]] : []))),
  );
  const permalink = fields.toString();
  useEffect(() => {
    if (permalink !== query.toString()) setQuery(new URLSearchParams(permalink), { replace: true });
  }, [permalink, query, setQuery]);
  const [plan, setPlan] = useState<Schemas["Plan"]>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const regions = useResource((signal) => unwrap(api.GET("/regions", { signal })), [api]);

  if (!identity.mayCall("POST /clusters/import")) return <Alert type="info">Importing a cluster needs the admin role.</Alert>;

  const value = (field: Field) => fields.get(field) ?? "";
  const update = (field: Field, next: string) => {
    const changed = new URLSearchParams(fields);
    if (next) changed.set(field, next);
    else changed.delete(field);
    setFields(changed);
    setPlan(undefined);
  };
  const body: Schemas["ImportClusterRequest"] = {
    clusterTag: value("clusterTag"),
    region: value("region"),
    eksClusterName: value("eksClusterName"),
    hyperPodClusterName: value("hyperPodClusterName") || undefined,
  };
  const call = async (dryRun: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const outcome = await unwrap(api.POST("/clusters/import", { params: { query: { dryRun } }, body }));
      if (!isAccepted(outcome)) setPlan(outcome);
      else {
        notify.operation(`Import cluster ${body.clusterTag}`, outcome.operationId);
        navigate(`/clusters/${encodeURIComponent(body.clusterTag)}`);
      }
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };
  const regionOptions = (regions.data?.regions ?? []).map(regionOption);
  return (
    <Form
      header={
        <Header variant="h1" description="Adopt an EKS cluster (and its HyperPod cluster) this control plane did not create.">
          Import cluster
        </Header>
      }
      actions={
        <SpaceBetween size="xs" direction="horizontal">
          <Button variant="link" onClick={() => navigate("/clusters")}>
            Cancel
          </Button>
          <Button loading={busy && !plan} onClick={() => void call(true)}>
            Review plan
          </Button>
          <Button variant="primary" disabled={!plan} loading={busy && plan !== undefined} onClick={() => void call(false)}>
            Import
          </Button>
        </SpaceBetween>
      }
    >
      <SpaceBetween size="l">
        <Container>
          <SpaceBetween size="l">
            <ErrorAlert error={regions.error} header="Regions could not be listed" />
            <FormField label="Cluster tag" description="The short name the control plane will know the cluster by.">
              <Input
                value={value("clusterTag")}
                onChange={({ detail }) => update("clusterTag", detail.value)}
                placeholder="team"
              />
            </FormField>
            <FormField label="Region">
              <Select
                selectedOption={selected(regionOptions, value("region"))}
                onChange={({ detail }) => update("region", detail.selectedOption.value ?? "")}
                options={regionOptions}
                filteringType="auto"
                statusType={regions.loading ? "loading" : "finished"}
                placeholder="Choose a Region"
              />
            </FormField>
            <FormField label="EKS cluster name" description="ACTIVE, with authentication mode API or API_AND_CONFIG_MAP.">
              <Input value={value("eksClusterName")} onChange={({ detail }) => update("eksClusterName", detail.value)} />
            </FormField>
            <FormField
              label="HyperPod cluster name"
              description="An InService HyperPod cluster on that EKS cluster, if there is one."
            >
              <Input
                value={value("hyperPodClusterName")}
                onChange={({ detail }) => update("hyperPodClusterName", detail.value)}
              />
            </FormField>
          </SpaceBetween>
        </Container>
        <ErrorAlert error={error} header="The API refuses this import" />
        {plan && (
          <Container header={<Header variant="h2">Plan</Header>}>
            <PlanDetails plan={plan} />
          </Container>
        )}
      </SpaceBetween>
    </Form>
  );
}
