import createWrapper from "@cloudscape-design/components/test-utils/dom";
import { render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { fakeApi, renderPage } from "../test/fakeApi";
import { NO_TEAM, TeamPicker, teamFields, type TeamChoice } from "./TeamPicker";

const TEAM = {
  team: "ml-a",
  namespace: "hyperpod-ns-ml-a",
  localQueue: "hyperpod-ns-ml-a-localqueue",
  quotaId: "abcdef123456",
  status: "Created",
  active: true,
  allocations: [{ instanceType: "ml.g5.xlarge", count: 2 }],
  sharing: "LendAndBorrow",
  preemptTeamTasks: "LowerPriority",
};
const POLICY = { priorityClasses: [{ name: "training", weight: 50 }], fairShare: true, idleResourceSharing: true, status: "Created", version: 1 };
const TEAMS = { clusterTag: "demo", teams: [TEAM], capacity: {}, allocated: {}, schedulerPolicy: POLICY };

function Harness({ initial }: { initial: TeamChoice }) {
  const [choice, setChoice] = useState<TeamChoice>(initial);
  return (
    <>
      <TeamPicker clusterTag="demo" value={choice} onChange={setChoice} />
      <output data-testid="choice">{JSON.stringify(teamFields(choice))}</output>
    </>
  );
}

function chosen(): unknown {
  return JSON.parse(screen.getByTestId("choice").textContent ?? "{}");
}

describe("the team picker", { timeout: 30_000 }, () => {
  it("offers the cluster's teams, then the scheduler policy's priority classes once a team is chosen", async () => {
    const { api } = fakeApi({ "GET /clusters/{clusterTag}/teams": TEAMS });
    const { container } = render(renderPage({ api, role: "operator", route: "/", url: "/", element: <Harness initial={NO_TEAM} /> }));
    const [teamSelect, prioritySelect] = createWrapper(container).findAllSelects();
    expect(prioritySelect.isDisabled()).toBe(true);
    teamSelect.openDropdown();
    await waitFor(() => expect(teamSelect.findDropdown().findOptions()).toHaveLength(2));
    teamSelect.selectOptionByValue("ml-a");
    await waitFor(() => expect(chosen()).toEqual({ team: "ml-a" }));
    prioritySelect.openDropdown();
    prioritySelect.selectOptionByValue("training");
    await waitFor(() => expect(chosen()).toEqual({ team: "ml-a", priority: "training" }));
  });

  it("clears the priority when the team changes, and sends nothing without a team", async () => {
    const { api } = fakeApi({ "GET /clusters/{clusterTag}/teams": TEAMS });
    const initial = { team: "ml-a", priority: "training" };
    const { container } = render(renderPage({ api, role: "operator", route: "/", url: "/", element: <Harness initial={initial} /> }));
    const [teamSelect] = createWrapper(container).findAllSelects();
    teamSelect.openDropdown();
    await waitFor(() => expect(teamSelect.findDropdown().findOptions()).toHaveLength(2));
    teamSelect.selectOptionByValue("");
    await waitFor(() => expect(chosen()).toEqual({}));
  });
});
