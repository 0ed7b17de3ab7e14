/**
 * Component-test helpers shared by every page: a fake of the typed API client that answers by "METHOD path" and
 * records every call, a render of one element inside the app context and a router, and a probe of the URL's search.
 * Fixtures of one page (a cluster, a plan) live next to that page's tests, not here.
 */
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import type { ApiClient } from "../api/client";
import { AppProvider, identityOf } from "../app-context";
import type { ConsoleConfig, Role } from "../config";

/** One request the page made: the path template, its path parameters, its query (`{}` when none) and its body. */
export interface Call {
  method: string;
  path: string;
  pathParams: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * What a route answers: a body (status 200), `{ status, body }` for another status (an error body from 400 on),
 * or a function of the call that returns either, or a promise of either.
 */
export type Answer = object | string | number | boolean | null | ((call: Call) => unknown);

export type Answers = Record<string, Answer>;

function isStatusAnswer(value: unknown): value is { status: number; body: unknown } {
  return typeof value === "object" && value !== null && "body" in value && typeof (value as { status?: unknown }).status === "number";
}

export function fakeApi(answers: Answers): { api: ApiClient; calls: Call[] } {
  const calls: Call[] = [];
  const respond =
    (method: string) =>
    async (path: string, options?: { params?: { path?: Record<string, string>; query?: Record<string, unknown> }; body?: unknown }) => {
      const call: Call = { method, path, pathParams: options?.params?.path ?? {}, query: options?.params?.query ?? {}, body: options?.body };
      calls.push(call);
      const answer = answers[`${method} ${path}`];
      if (answer === undefined) throw new Error(`fakeApi: no answer for ${method} ${path}`);
      const value = await (typeof answer === "function" ? answer(call) : answer);
      const { status, body } = isStatusAnswer(value) ? value : { status: 200, body: value };
      const response = new Response(null, { status });
      return status < 400 ? { data: body, response } : { error: body, response };
    };
  const api = { GET: respond("GET"), POST: respond("POST"), PUT: respond("PUT"), PATCH: respond("PATCH"), DELETE: respond("DELETE") };
  return { api: api as unknown as ApiClient, calls };
}

const CONFIG: ConsoleConfig = { apiBase: "/api", auth: { mode: "sandbox", roles: ["viewer", "operator", "admin"] } };

/** `element` at `url`, routed as `route`, for a person of `role`. */
export function renderPage(props: { api: ApiClient; role: Role; route: string; url: string; element: ReactNode }): ReactNode {
  return (
    <AppProvider config={CONFIG} api={props.api} identity={identityOf(props.role)}>
      <MemoryRouter initialEntries={[props.url]}>
        <Routes>
          <Route path={props.route} element={props.element} />
        </Routes>
      </MemoryRouter>
    </AppProvider>
  );
}

/** The URL's search string, shown as `data-testid="location"` so a test can read what the page put in the URL. */
export function LocationSearch() {
  const location = useLocation();
  return <output data-testid="location">{location.search}</output>;
}
