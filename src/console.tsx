import { Button } from "antd";
import { useEffect, useState } from "react";
import { lazyRetry } from "./lib/lazy-retry";
import type { PublicConfig } from "../contract/config";
import { FullAreaLoader } from "./components/full-area-loader";
import { StatusMessage } from "./components/status-message";
import { loadPublicConfig } from "./config/public-config";
import { strings } from "./config/strings";
import { AntdRoot } from "./providers/antd-root";
import { RefineRoot } from "./providers/refine-root";
import { ConsoleRoutes } from "./routes";

// One of the two session implementations is loaded, once the server has said which runs.
const LocalSessionProvider = lazyRetry(() => import("./auth/local-provider"));
const ClerkSessionProvider = lazyRetry(() => import("./auth/clerk"));

type Boot = { state: "loading" } | { state: "ready"; config: PublicConfig } | { state: "failed"; reason: string };

/** The signed-in console (a lazy chunk): GET /api/config, then the local or the Clerk session. */
export default function ConsoleApp() {
  const [boot, setBoot] = useState<Boot>({ state: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    loadPublicConfig().then(
      (config) => current && setBoot({ state: "ready", config }),
      (error: unknown) => current && setBoot({ state: "failed", reason: String((error as Error)?.message ?? error) }),
    );
    return () => {
      current = false;
    };
  }, [attempt]);

  return <AntdRoot>{renderBoot(boot, () => {
    setBoot({ state: "loading" });
    setAttempt((n) => n + 1);
  })}</AntdRoot>;
}

function renderBoot(boot: Boot, retry: () => void) {
  if (boot.state === "loading") return <FullAreaLoader />;
  if (boot.state === "failed") return <BootError detail={boot.reason} onRetry={retry} />;

  const tree = (
    <RefineRoot>
      <ConsoleRoutes />
    </RefineRoot>
  );
  const { authMode, clerkPublishableKey } = boot.config;
  if (authMode === "clerk") {
    if (!clerkPublishableKey) return <BootError detail="Clerk sign-in is configured without a publishable key." />;
    return <ClerkSessionProvider publishableKey={clerkPublishableKey}>{tree}</ClerkSessionProvider>;
  }
  return <LocalSessionProvider>{tree}</LocalSessionProvider>;
}

function BootError({ detail, onRetry }: { detail: string; onRetry?: () => void }) {
  return (
    <StatusMessage
      title={strings.boot.configFailed}
      detail={`${strings.boot.configFailedHint} (${detail})`}
      action={
        onRetry && (
          <Button type="primary" onClick={onRetry}>
            {strings.boot.retry}
          </Button>
        )
      }
    />
  );
}
