/** A fake of the typed API client for component tests: answers by "METHOD path" and records every call. */
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import type { ApiClient } from "../api/client";
import { AppProvider, identityOf } from "../app-context";
import type { ConsoleConfig, Role } from "../config";

export interface Call {
  method: string;
  path: string;
  params?: { path?: Record<string, string>; query?: Record<string, unknown> };
  body?: unknown;
}

/** An answer: a body (200), an API error body with its status, or a function of the call (may return a promise). */
export type Answer = unknown | { status: number; body: unknown } | ((call: Call) => unknown);

export function fakeApi(answers: Record<string, Answer>) {
  const calls: Call[] = [];
  const respond = (method: string) => async (path: string, options?: { params?: Call["params"]; body?: unknown }) => {
    const call: Call = { method, path, params: options?.params, body: options?.body };
    calls.push(call);
    const answer = answers[`${method} ${path}`];
    if (answer === undefined) throw new Error(`fakeApi: no answer for ${method} ${path}`);
    const value = await (typeof answer === "function" ? (answer as (call: Call) => unknown)(call) : answer);
    if (value && typeof value === "object" && "status" in value && "body" in value) {
      const { status, body } = value as { status: number; body: unknown };
      return { error: body, response: new Response(null, { status }) };
    }
    return { data: value, response: new Response(null, { status: 200 }) };
  };
  const api = { GET: respond("GET"), POST: respond("POST"), PATCH: respond("PATCH"), DELETE: respond("DELETE") };
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
