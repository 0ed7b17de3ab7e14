import { breadcrumbsFor } from "./Shell";

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
