import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fakeApi, renderPage } from "../../test/fakeApi";
import AuditPage from "./AuditPage";

const ENTRY = {
  target: "demo",
  at: "2026-12-01T10:00:00Z",
  actor: "arn:aws:sts::123456789012:assumed-role/mcp/s",
  onBehalfOf: "carol",
  role: "admin",
  action: "POST /clusters/demo/hyperpod",
  operationId: "op-00000000000000000001",
  requestId: "req-1",
  outcome: "202",
};

describe("AuditPage", () => {
  it("sends the URL's filters to the API and shows who acted for whom", async () => {
    const fake = fakeApi({ "GET /audit": { entries: [ENTRY] } });
    render(renderPage({ api: fake.api, role: "operator", route: "/audit", url: "/audit?clusterTag=demo", element: <AuditPage /> }));
    expect(await screen.findByText("carol")).toBeInTheDocument();
    expect(screen.getByText("op-00000000000000000001")).toBeInTheDocument();
    expect(fake.calls[0].query).toMatchObject({ clusterTag: "demo", actor: undefined, limit: 100 });
  });

  it("applies typed filters through the URL, and shows an API refusal with its request id", async () => {
    const fake = fakeApi({
      "GET /audit": { status: 403, body: { code: "Forbidden", message: "'read the audit trail' needs the operator role.", requestId: "req-9" } },
    });
    render(renderPage({ api: fake.api, role: "viewer", route: "/audit", url: "/audit", element: <AuditPage /> }));
    expect(await screen.findByText(/needs the operator role\. \(request id req-9\)/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Actor"), "alice");
    await userEvent.click(screen.getByRole("button", { name: "Apply filters" }));
    await screen.findAllByText(/request id req-9/);
    expect(fake.calls.at(-1)?.query).toMatchObject({ actor: "alice" });
  });
});
