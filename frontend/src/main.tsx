/** Starts the console: reads config.json, finishes a sign-in redirect, then renders the app or the sign-in page. */
import "@cloudscape-design/global-styles/index.css";
import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router-dom";
import { App } from "./App";
import { AppProvider, identityOf } from "./app-context";
import { createApiClient } from "./api/client";
import { SignIn } from "./auth/SignIn";
import { completeCognitoSignIn, currentSession, signOut } from "./auth/session";
import { loadConfig, type ConsoleConfig } from "./config";

function Root({ config }: { config: ConsoleConfig }) {
  const [session, setSession] = useState(currentSession);
  if (!session) return <SignIn config={config} onSignedIn={() => setSession(currentSession())} />;
  const api = createApiClient(
    config.apiBase,
    () => currentSession()?.authorization ?? null,
    () => signOut(config),
  );
  return (
    <AppProvider config={config} api={api} identity={identityOf(session.sandboxRole ?? "viewer")}>
      <App />
    </AppProvider>
  );
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
