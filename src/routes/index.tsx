import { Suspense } from "react";
import { lazyRetry } from "../lib/lazy-retry";
import { Navigate, Route, Routes } from "react-router";
import { FullAreaLoader } from "../components/full-area-loader";
import { ShellLayout } from "../components/layout";
import { RequireOrganization } from "../components/session/require-organization";
import { RequireSession } from "../components/session/require-session";

const DashboardPage = lazyRetry(() => import("./dashboard"));
const OrderListPage = lazyRetry(() => import("./orders/list"));
const CallLogListPage = lazyRetry(() => import("./call-logs/list"));
const PhoneNumberListPage = lazyRetry(() => import("./phone-numbers/list"));
const AgentEditPage = lazyRetry(() => import("./agents/edit"));
const PrivateAgentPage = lazyRetry(() => import("./agents/private"));
const InvitationPage = lazyRetry(() => import("./invitation"));
const CampaignListPage = lazyRetry(() => import("./campaigns/list"));
const CampaignCreatePage = lazyRetry(() => import("./campaigns/create"));
const CampaignEditPage = lazyRetry(() => import("./campaigns/edit"));
const CampaignCallsPage = lazyRetry(() => import("./campaigns/calls"));
const BillingPage = lazyRetry(() => import("./billing"));
const BillingDocumentPage = lazyRetry(() => import("./billing/document"));
const SubscriptionsPage = lazyRetry(() => import("./subscriptions"));
const CalendarPage = lazyRetry(() => import("./calendar/list"));
const CalendarPermissionPage = lazyRetry(() => import("./calendar/permission"));

/** The console's routes (spec §2): the shared-agent link, then everything inside the shell. */
export function ConsoleRoutes() {
  return (
    <Suspense fallback={<FullAreaLoader />}>
      <Routes>
      <Route path="agent/private/:agentID" element={<PrivateAgentPage />} />
      <Route
        path="invitation/:invitationId"
        element={
          <RequireSession>
            <InvitationPage />
          </RequireSession>
        }
      />
      <Route
        element={
          <RequireSession>
            <RequireOrganization>
              <ShellLayout />
            </RequireOrganization>
          </RequireSession>
        }
      >
        <Route index element={<Navigate to="/dashboard" replace />} />
        <Route path="dashboard" element={<DashboardPage />} />
        <Route path="orders" element={<OrderListPage />} />
        <Route path="call-logs" element={<CallLogListPage />} />
        <Route path="phone-numbers" element={<PhoneNumberListPage />} />
        <Route path="agent/:agentID" element={<AgentEditPage />} />
        <Route path="campaigns" element={<CampaignListPage />} />
        <Route path="campaigns/create" element={<CampaignCreatePage />} />
        <Route path="campaigns/edit/:id" element={<CampaignEditPage />} />
        <Route path="campaigns/:id/calls" element={<CampaignCallsPage />} />
        <Route path="billing" element={<BillingPage />} />
        <Route path="billing/documents/:id" element={<BillingDocumentPage />} />
        <Route path="subscriptions" element={<SubscriptionsPage />} />
        <Route path="calendar" element={<CalendarPage />} />
        <Route path="calendar-permission" element={<CalendarPermissionPage />} />
        <Route path="*" element={<Navigate to="/dashboard" replace />} />
      </Route>
      </Routes>
    </Suspense>
  );
}
