import { useMemo, useSyncExternalStore, type ReactNode } from "react";
import { AuthContext, type AuthSessionStore, type AuthUi } from "./session";

/** Publishes a session store (local implementation, or a fake in tests) with its widgets. */
export function SessionStoreProvider({
  store,
  ui,
  children,
}: {
  store: AuthSessionStore;
  ui: AuthUi;
  children: ReactNode;
}) {
  const session = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const value = useMemo(() => ({ session, ui }), [session, ui]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
