import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fakeApi, renderPage } from "../../test/fakeApi";
import SpacesPage from "./SpacesPage";

const IMAGES = ["public.ecr.aws/sagemaker/sagemaker-distribution:latest-cpu", "public.ecr.aws/sagemaker/sagemaker-distribution:latest-gpu"];
const LAB = {
  name: "lab",
  appType: "jupyterlab",
  image: IMAGES[1],
  gpus: 1,
  desiredStatus: "Running",
  status: "Running",
  namespace: "default",
  s3MountPath: "/home/sagemaker-user/workspace/s3",
  open: "kubectl port-forward -n default service/workspace-lab-service 8888:8888, then open http://localhost:8888",
};

function answers() {
  return fakeApi({
    "GET /clusters/{clusterTag}/spaces": { clusterTag: "demo", spaces: [LAB], allowedImages: IMAGES },
    "POST /clusters/{clusterTag}/spaces": { status: 201, body: { ...LAB, name: "notes", status: "Starting", open: null } },
    "PATCH /clusters/{clusterTag}/spaces/{name}": { ...LAB, desiredStatus: "Stopped", status: "Stopping", open: null },
  });
}

function page(role: "viewer" | "operator", fake = answers()) {
  render(renderPage({ api: fake.api, role, route: "/clusters/:clusterTag/spaces", url: "/clusters/demo/spaces", element: <SpacesPage /> }));
  return fake;
}

describe("SpacesPage", () => {
  it("shows how to open a running space and stops it", async () => {
    const fake = page("operator");
    expect(await screen.findByText(/kubectl port-forward -n default service\/workspace-lab-service/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Stop lab" }));
    const patch = fake.calls.find((call) => call.method === "PATCH");
    expect(patch?.pathParams).toMatchObject({ clusterTag: "demo", name: "lab" });
    expect(patch?.body).toEqual({ desiredStatus: "Stopped" });
  });

  it("creates a space with only what the person set", async () => {
    const fake = page("operator");
    await screen.findByText("lab");
    await userEvent.type(screen.getByLabelText("Name"), "notes");
    await userEvent.click(screen.getByRole("button", { name: "Create space" }));
    const post = fake.calls.find((call) => call.method === "POST");
    expect(post?.body).toEqual({ name: "notes", appType: "jupyterlab", gpus: 0 });
  });

  it("does not let a viewer change a space", async () => {
    page("viewer");
    await screen.findByText("lab");
    expect(screen.getByRole("button", { name: "Stop lab" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Create space" })).toBeDisabled();
  });
});
