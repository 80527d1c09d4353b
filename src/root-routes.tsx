import { lazy, Suspense } from "react";
import { Route, Routes } from "react-router";
import { FullAreaLoader } from "./components/full-area-loader";

// Chosen before any auth code: the public pages load neither the sign-in library nor the shell.
const WebCallPage = lazy(() => import("./routes/public/web-call"));
const PublicAgentPage = lazy(() => import("./routes/public/agent"));
const ConsoleApp = lazy(() => import("./console"));

export function RootRoutes() {
  return (
    <Suspense fallback={<FullAreaLoader />}>
      <Routes>
        <Route path="/web-call/:callSlug" element={<WebCallPage />} />
        <Route path="/public/agent/:agentID" element={<PublicAgentPage />} />
        <Route path="*" element={<ConsoleApp />} />
      </Routes>
    </Suspense>
  );
}
