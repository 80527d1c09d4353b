import { Refine } from "@refinedev/core";
import routerProvider from "@refinedev/react-router";
import { QueryClient } from "@tanstack/react-query";
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { activeRole, useAuthSession, type AuthSession } from "../auth/session";
import { createTokenStore } from "../auth/token-store";
import { refineResources } from "../config/resources";
import { createAccessControlProvider } from "./access-control";
import { createAuthProvider } from "./auth";
import { createDataProvider } from "./data";
import { isApiError } from "./data/fetch-wrapper";
import { useNotificationProvider } from "./notification";

/** The latest session for the providers' async functions, and a way to wait until it has loaded. */
class SessionMirror {
  private waiters: Array<(session: AuthSession) => void> = [];
  constructor(public current: AuthSession) {}

  update(session: AuthSession): void {
    this.current = session;
    if (session.status === "loading") return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve(session);
  }

  settled(): Promise<AuthSession> {
    if (this.current.status !== "loading") return Promise.resolve(this.current);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        refetchOnWindowFocus: false,
        // A 4xx will answer the same again; retry only network trouble and 5xx, once.
        retry: (failures, error) =>
          failures < 1 && !(isApiError(error) && error.statusCode >= 400 && error.statusCode < 500),
      },
    },
  });
}

/**
 * Refine over the current AuthSession: the data provider (bearer token refreshed every 10 s), the auth
 * and access-control providers, and the toasts. Must sit inside a session provider and AntdRoot.
 */
export function RefineRoot({ children }: { children: ReactNode }) {
  const session = useAuthSession();
  const [mirror] = useState(() => new SessionMirror(session));
  const [tokenStore] = useState(() => createTokenStore(() => mirror.current.getToken()));
  const [queryClient] = useState(createQueryClient);

  useLayoutEffect(() => mirror.update(session), [mirror, session]);

  const signedIn = session.status === "signedIn";
  useEffect(() => {
    if (!signedIn) return;
    tokenStore.start();
    return () => tokenStore.stop();
  }, [signedIn, tokenStore]);

  // Another user or another organisation: nothing fetched for the previous one may show.
  const identity = `${session.status}|${session.user?.id ?? ""}|${session.activeOrganizationId ?? ""}`;
  const previousIdentity = useRef(identity);
  useEffect(() => {
    const before = previousIdentity.current;
    if (before === identity) return;
    previousIdentity.current = identity;
    if (!signedIn) {
      queryClient.clear();
      return;
    }
    // A Clerk token names the organisation: after a switch, fetch one for the new organisation before
    // refetching. (Just signed in, the token store's start has fetched one already.)
    if (before.startsWith("signedIn|")) void tokenStore.refresh();
    void queryClient.resetQueries();
  }, [identity, signedIn, queryClient, tokenStore]);

  const dataProvider = useMemo(() => createDataProvider({ getToken: () => tokenStore.get() }), [tokenStore]);
  const authProvider = useMemo(
    () => createAuthProvider(() => mirror.current, () => mirror.settled()),
    [mirror],
  );
  const accessControlProvider = useMemo(
    () => createAccessControlProvider(() => activeRole(mirror.current)),
    [mirror],
  );

  return (
    <Refine
      routerProvider={routerProvider}
      dataProvider={dataProvider}
      authProvider={authProvider}
      accessControlProvider={accessControlProvider}
      notificationProvider={useNotificationProvider}
      resources={refineResources}
      options={{
        disableTelemetry: true,
        syncWithLocation: true,
        mutationMode: "pessimistic",
        reactQuery: { clientConfig: queryClient },
      }}
    >
      {children}
    </Refine>
  );
}
