import { act, renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AppProvider, identityOf } from "../../app-context";
import { signInToSandbox } from "../../auth/session";
import type { ConsoleConfig } from "../../config";
import { fakeApi } from "../../test/fakeApi";
import { extend, socketUrl, TAIL_LINES, useJobLogs } from "./useJobLogs";

const LOGS = { jobName: "hello", pod: "hello-pods-0", pods: ["hello-pods-0"], lines: ["step 1", "step 2"] };

/** A WebSocket that the test drives: it records what the hook sends and delivers the frames the test gives it. */
class FakeSocket {
  static opened: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  sent: unknown[] = [];
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
    setTimeout(() => this.onopen?.(), 0);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.closed = true;
  }
  receive(frame: object) {
    act(() => this.onmessage?.({ data: JSON.stringify(frame) }));
  }
  drop() {
    act(() => this.onclose?.());
  }
}

const lines = (start: number, texts: string[], pod = "hello-pods-0") => ({ type: "lines" as const, topic: "demo/hello", pod, pods: [pod], start, lines: texts });

function wrap(config: ConsoleConfig, api: ReturnType<typeof fakeApi>["api"]) {
  return function Wrapper({ children }: { children: ReactNode }) {
    return (
      <AppProvider config={config} api={api} identity={identityOf("viewer")}>
        {children}
      </AppProvider>
    );
  };
}

const WS_CONFIG: ConsoleConfig = { apiBase: "/api", wsBase: "/ws", auth: { mode: "sandbox", roles: ["viewer"] } };

describe("useJobLogs over the WebSocket", () => {
  beforeEach(() => {
    FakeSocket.opened = [];
    vi.stubGlobal("WebSocket", FakeSocket);
    signInToSandbox("viewer");
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    sessionStorage.clear();
  });

  it("subscribes with the session's token and extends the log with each frame, without polling", async () => {
    const fake = fakeApi({ "GET /clusters/{clusterTag}/jobs/{jobName}/logs": LOGS });
    const { result, unmount } = renderHook(() => useJobLogs("demo", "hello", { pod: undefined, follow: true, intervalMs: 10 }), {
      wrapper: wrap(WS_CONFIG, fake.api),
    });
    await waitFor(() => expect(FakeSocket.opened).toHaveLength(1));
    const socket = FakeSocket.opened[0];
    expect(socket.url).toBe(`ws://${window.location.host}/ws?token=sandbox-viewer`);
    await waitFor(() => expect(socket.sent).toEqual([{ action: "subscribe", clusterTag: "demo", jobName: "hello" }]));
    socket.receive({ type: "subscribed", topic: "demo/hello" });
    socket.receive(lines(0, ["step 1", "step 2"]));
    socket.receive(lines(1, ["step 2", "step 3"]));
    await waitFor(() => expect(result.current.logs?.lines).toEqual(["step 1", "step 2", "step 3"]));
    expect(fake.calls).toHaveLength(0);
    unmount();
    expect(socket.closed).toBe(true);
  });

  it("shows a refusal as the error", async () => {
    const fake = fakeApi({});
    const { result } = renderHook(() => useJobLogs("demo", "hello", { pod: "other", follow: true }), { wrapper: wrap(WS_CONFIG, fake.api) });
    await waitFor(() => expect(FakeSocket.opened).toHaveLength(1));
    FakeSocket.opened[0].receive({ type: "error", code: "NotFound", message: "Pod 'other' is not one of job 'hello''s pods" });
    await waitFor(() => expect(String(result.current.error)).toContain("is not one of"));
  });

  it("falls back to polling when the socket closes before it subscribed", async () => {
    const fake = fakeApi({ "GET /clusters/{clusterTag}/jobs/{jobName}/logs": LOGS });
    const { result } = renderHook(() => useJobLogs("demo", "hello", { pod: undefined, follow: true, intervalMs: 10 }), {
      wrapper: wrap(WS_CONFIG, fake.api),
    });
    await waitFor(() => expect(FakeSocket.opened).toHaveLength(1));
    FakeSocket.opened[0].drop();
    await waitFor(() => expect(fake.calls.length).toBeGreaterThanOrEqual(2));
    expect(result.current.logs?.lines).toEqual(["step 1", "step 2"]);
  });

  it("reads the logs route once, and opens no socket, when the job is not running", async () => {
    const fake = fakeApi({ "GET /clusters/{clusterTag}/jobs/{jobName}/logs": LOGS });
    const { result } = renderHook(() => useJobLogs("demo", "hello", { pod: undefined, follow: false }), { wrapper: wrap(WS_CONFIG, fake.api) });
    await waitFor(() => expect(result.current.logs?.lines).toEqual(["step 1", "step 2"]));
    expect(FakeSocket.opened).toHaveLength(0);
  });
});

describe("extend", () => {
  it("replaces the log on a frame from line 0 (a new pod or a restarted container)", () => {
    const first = extend(undefined, "hello", lines(0, ["a", "b"]));
    expect(extend(first, "hello", lines(0, ["restarted"])).logs.lines).toEqual(["restarted"]);
    expect(extend(first, "hello", lines(1, ["x"], "hello-pods-1")).logs.lines).toEqual(["x"]);
  });

  it("keeps the last TAIL_LINES and counts the pod's lines it dropped", () => {
    const many = Array.from({ length: TAIL_LINES + 5 }, (_, n) => `line ${n}`);
    const followed = extend(undefined, "hello", lines(0, many));
    expect(followed.logs.lines).toHaveLength(TAIL_LINES);
    expect(followed.dropped).toBe(5);
    const next = extend(followed, "hello", lines(TAIL_LINES + 4, [`line ${TAIL_LINES + 4}`, "new"]));
    expect(next.logs.lines.at(-1)).toBe("new");
    expect(next.logs.lines.at(-2)).toBe(`line ${TAIL_LINES + 4}`);
    expect(next.logs.lines).toHaveLength(TAIL_LINES);
  });
});

describe("socketUrl", () => {
  it("keeps an absolute wss address and adds the token", () => {
    expect(socketUrl("wss://abc.execute-api.us-east-1.amazonaws.com/v1", "t.o.k")).toBe("wss://abc.execute-api.us-east-1.amazonaws.com/v1?token=t.o.k");
  });
});
