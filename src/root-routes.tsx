import { Suspense } from "react";
import { Route, Routes, useLocation } from "react-router";
import { ScreenErrorBoundary } from "./components/error-boundary";
import { FullAreaLoader } from "./components/full-area-loader";
import { lazyRetry } from "./lib/lazy-retry";

// Chosen before any auth code: the public pages load neither the sign-in library nor the shell.
const WebCallPage = lazyRetry(() => import("./routes/public/web-call"));
const PublicAgentPage = lazyRetry(() => import("./routes/public/agent"));
const ConsoleApp = lazyRetry(() => import("./console"));

export function RootRoutes() {
  const { pathname } = useLocation();
  return (
    <ScreenErrorBoundary resetKey={pathname}>
    <Suspense fallback={<FullAreaLoader />}>
      <Routes>
        <Route path="/web-call/:callSlug" element={<WebCallPage />} />
        <Route path="/public/agent/:agentID" element={<PublicAgentPage />} />
        <Route path="*" element={<ConsoleApp />} />
      </Routes>
    </Suspense>
    </ScreenErrorBoundary>
  );
}
