/**
 * Starts the console: reads config.json, finishes a sign-in redirect, asks the API who the person is (`GET /me`,
 * the role it enforces, in either sign-in mode), then renders the app or the sign-in page.
 */
import "@cloudscape-design/global-styles/index.css";
import Spinner from "@cloudscape-design/components/spinner";
import { StrictMode, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router-dom";
import { App } from "./App";
import { AppProvider, identityOf } from "./app-context";
import { createApiClient, unwrap } from "./api/client";
import { SignIn } from "./auth/SignIn";
import { completeCognitoSignIn, currentSession, signOut } from "./auth/session";
import { ErrorAlert } from "./components/ErrorAlert";
import { loadConfig, type ConsoleConfig } from "./config";
import { useResource } from "./hooks/useResource";

function SignedIn({ config }: { config: ConsoleConfig }) {
  const api = useMemo(
    () =>
      createApiClient(
        config.apiBase,
        () => currentSession()?.authorization ?? null,
        () => signOut(config),
      ),
    [config],
  );
  const me = useResource((signal) => unwrap(api.GET("/me", { signal })), [api]);
  if (me.error) return <ErrorAlert error={me.error} header="Who you are could not be read" />;
  if (!me.data) return <Spinner size="large" />;
  return (
    <AppProvider config={config} api={api} identity={identityOf(me.data.role)}>
      <App />
    </AppProvider>
  );
}

function Root({ config }: { config: ConsoleConfig }) {
  const [session, setSession] = useState(currentSession);
  if (!session) return <SignIn config={config} onSignedIn={() => setSession(currentSession())} />;
  return <SignedIn config={config} />;
}

async function start(): Promise<void> {
  const root = createRoot(document.getElementById("root")!);
  try {
    const config = await loadConfig();
    if (config.auth.mode === "cognito") {
      const returnTo = await completeCognitoSignIn(config.auth, window.location);
      if (returnTo) window.history.replaceState(null, "", returnTo);
    }
    root.render(
      <StrictMode>
        <BrowserRouter>
          <Root config={config} />
        </BrowserRouter>
      </StrictMode>,
    );
  } catch (error) {
    root.render(<pre role="alert">{String(error)}</pre>);
  }
}

void start();
