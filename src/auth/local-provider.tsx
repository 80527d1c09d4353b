import { useState, type ReactNode } from "react";
import { localUi } from "../components/auth/local";
import { LocalAuthSessionStore } from "./local";
import { SessionStoreProvider } from "./provider";

/** Local mode's session root (a lazy chunk: better-auth's client is loaded only in local mode). */
export default function LocalSessionProvider({ children }: { children: ReactNode }) {
  const [store] = useState(() => new LocalAuthSessionStore());
  return (
    <SessionStoreProvider store={store} ui={localUi}>
      {children}
    </SessionStoreProvider>
  );
}
