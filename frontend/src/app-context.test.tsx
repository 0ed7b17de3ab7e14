import Flashbar from "@cloudscape-design/components/flashbar";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useEffect } from "react";
import { MemoryRouter, useLocation, useNavigate } from "react-router-dom";
import { AppProvider, identityOf, useApp } from "./app-context";
import { fakeApi } from "./test/fakeApi";

const ENDED = { operationId: "op-1", status: "SUCCEEDED", kind: "update_instance_group", target: "demo", stages: [], destructive: false };

/** What the Shell does with flashes: shows them, and tells the app which page is shown. */
function Page() {
  const { flashes, notify, showPage } = useApp();
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => showPage(location.pathname), [showPage, location.pathname]);
  return (
    <>
      <Flashbar items={flashes} />
      <button onClick={() => notify.operation("Scale group", "op-1")}>Scale</button>
      <button onClick={() => notify.success("Job submitted.")}>Submit</button>
      <button onClick={() => navigate("/clusters/demo?tab=nodes")}>Another tab</button>
      <button onClick={() => navigate("/operations")}>Leave</button>
    </>
  );
}

function renderApp() {
  const { api } = fakeApi({ "GET /operations/{operationId}": ENDED });
  render(
    <AppProvider config={{ apiBase: "/api", auth: { mode: "sandbox", roles: ["admin"] } }} api={api} identity={identityOf("admin")}>
      <MemoryRouter initialEntries={["/clusters/demo"]}>
        <Page />
      </MemoryRouter>
    </AppProvider>,
  );
}

describe("the notification bar", () => {
  it("clears an ended operation's flash once the page it started on is left, and keeps other flashes", async () => {
    renderApp();
    await userEvent.click(screen.getByRole("button", { name: "Submit" }));
    await userEvent.click(screen.getByRole("button", { name: "Scale" }));
    expect(await screen.findByText("Scale group: done")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Another tab" }));
    expect(screen.getByText("Scale group: done")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Leave" }));
    await waitFor(() => expect(screen.queryByText("Scale group: done")).toBeNull());
    expect(screen.getByText("Job submitted.")).toBeInTheDocument();
  });

  it("lets a person dismiss an ended operation's flash", async () => {
    renderApp();
    await userEvent.click(screen.getByRole("button", { name: "Scale" }));
    expect(await screen.findByText("Scale group: done")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    await waitFor(() => expect(screen.queryByText("Scale group: done")).toBeNull());
  });
});
