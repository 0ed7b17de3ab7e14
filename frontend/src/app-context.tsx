/** What every page uses: the typed API client, who is signed in, and the notification bar. */
import type { FlashbarProps } from "@cloudscape-design/components/flashbar";
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";
import { ApiError, unwrap, type ApiClient, type Schemas } from "./api/client";
import { REQUIRED_ROLES, type RouteKey } from "./api/contract.gen";
import { operationEnd } from "./api/operations";
import { forPeople } from "./components/forPeople";
import { endedFlash, runningFlash, unfollowedFlash, type Flash } from "./components/operationFlash";
import type { ConsoleConfig, Role } from "./config";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export interface Identity {
  role: Role;
  /** Whether the signed-in role reaches `required`. */
  can: (required: Role) => boolean;
  /**
   * Whether the signed-in role may call a route (`"POST /clusters"`): the weakest role the API's own route → role
   * table allows (`x-required-role` in the OpenAPI document). A route whose body decides (node batches) may still
   * be refused for some bodies; the API enforces every call.
   */
  mayCall: (route: RouteKey) => boolean;
}

export function identityOf(role: Role): Identity {
  const can = (required: Role) => RANK[role] >= RANK[required];
  return { role, can, mayCall: (route) => can(REQUIRED_ROLES[route]) };
}

export interface Notify {
  success: (content: ReactNode) => void;
  /** Shows an API error with its message, code and request id. */
  error: (error: unknown, header?: string) => void;
  /**
   * Follows an operation a page started: one flash, running until the operation ends, then its outcome (failure
   * with Resume), announced. `onSettled` runs at each end (after a resume from the flash too).
   */
  operation: (header: string, operationId: string, onSettled?: (operation: Schemas["OperationView"]) => void) => void;
}

interface AppContextValue {
  config: ConsoleConfig;
  api: ApiClient;
  identity: Identity;
  notify: Notify;
  flashes: FlashbarProps.MessageDefinition[];
  /**
   * The page now shown (its path, from the router): an ended operation's flash clears once the page it started on is
   * left; one still running stays until it ends.
   */
  showPage: (pathname: string) => void;
}

const AppContext = createContext<AppContextValue | null>(null);

export function errorText(error: unknown): { message: string; requestId?: string; code?: string } {
  if (error instanceof ApiError) return { message: forPeople(error.message), requestId: error.requestId, code: error.code };
  return { message: error instanceof Error ? error.message : String(error) };
}

export function AppProvider(props: { config: ConsoleConfig; api: ApiClient; identity: Identity; children: ReactNode }) {
  const { config, api, identity, children } = props;
  const [flashes, setFlashes] = useState<FlashbarProps.MessageDefinition[]>([]);
  const page = useRef<string | undefined>(undefined);
  /** The page each followed operation's flash started on, by flash id. */
  const startedOn = useRef(new Map<string, string | undefined>());
  const showPage = useCallback((pathname: string) => {
    if (page.current === pathname) return;
    page.current = pathname;
    setFlashes((current) =>
      current.filter((item) => {
        const left = item.id !== undefined && startedOn.current.has(item.id) && startedOn.current.get(item.id) !== pathname && !item.loading;
        if (left) startedOn.current.delete(item.id as string);
        return !left;
      }),
    );
  }, []);
  /** Shows `flash` as the flash `id`: in its place when there is one, else first. */
  const put = useCallback((flash: Flash, id: string = crypto.randomUUID()) => {
    const dismiss = () => {
      startedOn.current.delete(id);
      setFlashes((current) => current.filter((item) => item.id !== id));
    };
    const item = { ...flash, id, dismissible: !flash.loading, dismissLabel: "Dismiss", onDismiss: dismiss };
    setFlashes((current) =>
      current.some((other) => other.id === id)
        ? current.map((other) => (other.id === id ? item : other))
        : [item, ...current].slice(0, 5),
    );
  }, []);
  const notify = useMemo<Notify>(
    () => ({
      success: (content) => put({ type: "success", ariaRole: "status", content }),
      error: (error, header) => {
        const { message, requestId, code } = errorText(error);
        put({
          type: "error",
          ariaRole: "alert",
          header: header ?? code ?? "Request failed",
          content: requestId ? `${message} (request id ${requestId})` : message,
        });
      },
      operation: function follow(header, operationId, onSettled) {
        startedOn.current.set(operationId, page.current);
        put(runningFlash(header, operationId), operationId);
        const resume = async () => {
          try {
            await unwrap(api.POST("/operations/{operationId}/resume", { params: { path: { operationId } } }));
            follow(header, operationId, onSettled);
          } catch (error) {
            notify.error(error, "The operation could not be resumed");
          }
        };
        const mayResume = identity.mayCall("POST /operations/{operationId}/resume");
        operationEnd(api, operationId).then(
          (ended) => {
            put(endedFlash(header, ended, mayResume ? () => void resume() : undefined), operationId);
            onSettled?.(ended);
          },
          (error: unknown) => put(unfollowedFlash(header, operationId, errorText(error).message), operationId),
        );
      },
    }),
    [put, api, identity],
  );
  const value = useMemo(() => ({ config, api, identity, notify, flashes, showPage }), [config, api, identity, notify, flashes, showPage]);
  return <AppContext.Provider value={value}>{children}</AppContext.Provider>;
}

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error("useApp outside AppProvider");
  return value;
}
