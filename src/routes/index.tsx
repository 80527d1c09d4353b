import { lazy, Suspense } from "react";
import { Navigate, Route, Routes } from "react-router";
import { FullAreaLoader } from "../components/full-area-loader";
import { ShellLayout } from "../components/layout";
import { RequireOrganization } from "../components/session/require-organization";
import { RequireSession } from "../components/session/require-session";

const DashboardPage = lazy(() => import("./dashboard"));
const OrderListPage = lazy(() => import("./orders/list"));
const CallLogListPage = lazy(() => import("./call-logs/list"));
const PhoneNumberListPage = lazy(() => import("./phone-numbers/list"));
const AgentEditPage = lazy(() => import("./agents/edit"));
const PrivateAgentPage = lazy(() => import("./agents/private"));
const InvitationPage = lazy(() => import("./invitation"));
const CampaignListPage = lazy(() => import("./campaigns/list"));
const CampaignCreatePage = lazy(() => import("./campaigns/create"));
const CampaignEditPage = lazy(() => import("./campaigns/edit"));
const CampaignCallsPage = lazy(() => import("./campaigns/calls"));
const BillingPage = lazy(() => import("./billing"));
const BillingDocumentPage = lazy(() => import("./billing/document"));
const SubscriptionsPage = lazy(() => import("./subscriptions"));
const CalendarPage = lazy(() => import("./calendar/list"));
const CalendarPermissionPage = lazy(() => import("./calendar/permission"));

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
