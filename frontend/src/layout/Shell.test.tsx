import { breadcrumbsFor, navigationFor } from "./Shell";

describe("breadcrumbsFor", () => {
  it("names each section and keeps the path of each crumb, so every crumb is a permalink", () => {
    expect(breadcrumbsFor("/clusters/demo%20one")).toEqual([
      { text: "InstantStart", href: "/" },
      { text: "Clusters", href: "/clusters" },
      { text: "demo one", href: "/clusters/demo%20one" },
    ]);
    expect(breadcrumbsFor("/clusters/create").at(-1)).toEqual({ text: "Create cluster", href: "/clusters/create" });
  });
});

describe("navigationFor", () => {
  it("offers a cluster's own pages inside the cluster, with its training jobs labelled in the breadcrumbs", () => {
    expect(navigationFor("/clusters").activeHref).toBe("/clusters");
    const inside = navigationFor("/clusters/demo/jobs/hello");
    expect(inside.activeHref).toBe("/clusters/demo/jobs");
    expect(inside.items.at(-1)).toMatchObject({ type: "section", text: "Cluster demo" });
    expect(navigationFor("/clusters/create").items).toHaveLength(4);
    expect(breadcrumbsFor("/clusters/demo/jobs/hello").slice(3)).toEqual([
      { text: "Training jobs", href: "/clusters/demo/jobs" },
      { text: "hello", href: "/clusters/demo/jobs/hello" },
    ]);
  });
});
