/**
 * Component tests' API: a fake typed client answering from a table of routes (`"GET /regions"` → reply), and a
 * render helper that puts a page inside the app context and a router at a given URL. No network.
 */
import { configure, render } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { vi } from "vitest";
import type { ApiClient } from "../api/client";
import { AppProvider, identityOf } from "../app-context";
import type { Role } from "../config";

// A page's first Cloudscape render can take seconds on a busy machine: wait that long for what a test expects.
configure({ asyncUtilTimeout: 10_000 });

export interface Reply {
  status?: number;
  body: unknown;
}

export interface CallInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  body?: unknown;
}

/** Answers a call: `(init) => reply`, keyed by method and the OpenAPI path (`"POST /clusters/{clusterTag}/storage"`). */
export type Routes = Record<string, (init: CallInit) => Reply | Promise<Reply>>;

export function reply(body: unknown, status = 200): Reply {
  return { status, body };
}

export function fakeApi(routes: Routes) {
  const calls: { method: string; path: string; init: CallInit }[] = [];
  const answer = (method: string) =>
    vi.fn(async (path: string, init: CallInit = {}) => {
      calls.push({ method, path, init });
      const route = routes[`${method} ${path}`];
      const { status = 200, body } = route
        ? await route(init)
        : reply({ code: "NotFound", message: `no fake for ${method} ${path}`, requestId: "test" }, 404);
      const response = new Response(null, { status });
      return status < 400 ? { data: body, response } : { error: body, response };
    });
  const api = { GET: answer("GET"), POST: answer("POST"), DELETE: answer("DELETE"), PATCH: answer("PATCH") };
  return { api: api as unknown as ApiClient, calls };
}

let shownLocation = "";

function LocationProbe() {
  const location = useLocation();
  shownLocation = `${location.pathname}${location.search}`;
  return null;
}

/** The router's current path and query, as the last render saw them. */
export function currentLocation(): string {
  return shownLocation;
}

/** Renders `page` at `url` (matched by `path`, e.g. `/clusters/:clusterTag`) with `api`, signed in as `role`. */
export function renderPage(page: ReactNode, options: { api: ApiClient; url: string; path: string; role?: Role }) {
  const config = { apiBase: "/api", auth: { mode: "sandbox" as const, roles: ["viewer", "operator", "admin"] as Role[] } };
  return render(
    <AppProvider config={config} api={options.api} identity={identityOf(options.role ?? "admin")}>
      <MemoryRouter initialEntries={[options.url]}>
        <LocationProbe />
        <Routes>
          <Route path={options.path} element={page} />
          <Route path="*" element={null} />
        </Routes>
      </MemoryRouter>
    </AppProvider>,
  );
}
