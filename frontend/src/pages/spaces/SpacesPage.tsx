/**
 * A cluster's dev spaces (`/clusters/{tag}/spaces`): JupyterLab and Code Editor spaces with the cluster's S3 claim at
 * ~/workspace/s3 — each with its status and, once running, how to open it (port-forward); create one (an allowed
 * image, GPUs), start or stop it, and delete it through the plan dialog. Needs the cluster's devSpaces feature.
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
import { useParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Status } from "../../components/status";
import { useResource } from "../../hooks/useResource";
import { usePlannedAction } from "../cluster/plan";

type Space = Schemas["SpaceView"];
const APPS = [
  { value: "jupyterlab", label: "JupyterLab" },
  { value: "code-editor", label: "Code Editor" },
];
const DEFAULT_IMAGE = { value: "", label: "Default (GPU image with GPUs)" };

export default function SpacesPage() {
  const { clusterTag = "" } = useParams();
  const { api, identity } = useApp();
  const path = { clusterTag };
  const spaces = useResource((signal) => unwrap(api.GET("/clusters/{clusterTag}/spaces", { params: { path }, signal })), [api, clusterTag]);
  const [draft, setDraft] = useState({ name: "", appType: "jupyterlab", gpus: "0", image: "" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const { start, modal } = usePlannedAction(() => spaces.reload());
  const mayWrite = identity.mayCall("POST /clusters/{clusterTag}/spaces");

  const act = async (call: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await call();
      spaces.reload();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const create = () =>
    act(() => {
      const body = {
        name: draft.name.trim(),
        appType: draft.appType as Schemas["CreateSpaceRequest"]["appType"],
        gpus: Number(draft.gpus),
        ...(draft.image ? { image: draft.image } : {}),
      };
      return unwrap(api.POST("/clusters/{clusterTag}/spaces", { params: { path }, body }));
    });

  const setStatus = (space: Space, desiredStatus: "Running" | "Stopped") =>
    act(() => unwrap(api.PATCH("/clusters/{clusterTag}/spaces/{name}", { params: { path: { clusterTag, name: space.name } }, body: { desiredStatus } })));

  const remove = (space: Space) => {
    const call = (confirmationToken?: string) =>
      unwrap(api.DELETE("/clusters/{clusterTag}/spaces/{name}", { params: { path: { clusterTag, name: space.name }, query: { confirmationToken } } }));
    start({ header: `Delete space ${space.name}`, confirmLabel: "Delete", plan: () => call(), run: (token) => call(token) });
  };

  const images = [DEFAULT_IMAGE, ...(spaces.data?.allowedImages ?? []).map((value) => ({ value, label: value }))];
  return (
    <SpaceBetween size="l">
      <ErrorAlert error={spaces.error} header="The spaces could not be read" />
      <ErrorAlert error={error} header="The space could not be changed" />
      <Table
        loading={spaces.loading}
        loadingText="Loading spaces"
        items={spaces.data?.spaces ?? []}
        trackBy="name"
        header={
          <Header
            variant="h1"
            counter={spaces.data ? `(${spaces.data.spaces.length})` : undefined}
            description="JupyterLab and Code Editor on the cluster; the cluster's S3 bucket is at ~/workspace/s3."
            actions={<Button iconName="refresh" ariaLabel="Refresh" onClick={spaces.reload} />}
          >
            Dev spaces
          </Header>
        }
        empty={<Box textAlign="center">No spaces yet.</Box>}
        columnDefinitions={[
          { id: "name", header: "Name", cell: (s) => s.name },
          { id: "app", header: "App", cell: (s) => APPS.find((app) => app.value === s.appType)?.label ?? s.appType },
          { id: "gpus", header: "GPUs", cell: (s) => s.gpus },
          { id: "status", header: "Status", cell: (s) => <Status value={s.status} /> },
          { id: "open", header: "Open", cell: (s) => (s.open ? <Box variant="code">{s.open}</Box> : "-") },
          {
            id: "actions",
            header: "",
            cell: (s) => (
              <SpaceBetween direction="horizontal" size="xs">
                {s.desiredStatus === "Running" ? (
                  <Button disabled={!mayWrite || busy} onClick={() => void setStatus(s, "Stopped")} ariaLabel={`Stop ${s.name}`}>
                    Stop
                  </Button>
                ) : (
                  <Button disabled={!mayWrite || busy} onClick={() => void setStatus(s, "Running")} ariaLabel={`Start ${s.name}`}>
                    Start
                  </Button>
                )}
                <Button disabled={!mayWrite} onClick={() => remove(s)} ariaLabel={`Delete ${s.name}`}>
                  Delete
                </Button>
              </SpaceBetween>
            ),
          },
        ]}
      />
      <Container header={<Header description="Needs the devSpaces feature (Features tab).">Create a space</Header>}>
        <SpaceBetween size="m">
          <ColumnLayout columns={4}>
            <FormField label="Name">
              <Input value={draft.name} onChange={({ detail }) => setDraft({ ...draft, name: detail.value })} />
            </FormField>
            <FormField label="App">
              <Select
                selectedOption={APPS.find((app) => app.value === draft.appType) ?? APPS[0]}
                options={APPS}
                onChange={({ detail }) => setDraft({ ...draft, appType: detail.selectedOption.value ?? "jupyterlab" })}
              />
            </FormField>
            <FormField label="GPUs">
              <Input type="number" value={draft.gpus} onChange={({ detail }) => setDraft({ ...draft, gpus: detail.value })} />
            </FormField>
            <FormField label="Image">
              <Select
                selectedOption={images.find((image) => image.value === draft.image) ?? DEFAULT_IMAGE}
                options={images}
                onChange={({ detail }) => setDraft({ ...draft, image: detail.selectedOption.value ?? "" })}
              />
            </FormField>
          </ColumnLayout>
          <Button variant="primary" disabled={!mayWrite || !draft.name.trim()} loading={busy} onClick={() => void create()}>
            Create space
          </Button>
        </SpaceBetween>
      </Container>
      {modal}
    </SpaceBetween>
  );
}
