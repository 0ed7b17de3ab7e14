import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// `make test` runs these beside the Python suites on two cores: a Cloudscape page can take seconds to render there,
// so `findBy…`/`waitFor` wait up to 10 s (Testing Library's 1 s default failed tests under that load).
configure({ asyncUtilTimeout: 10_000 });

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});
