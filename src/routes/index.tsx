import { Suspense, type ComponentType } from "react";
import { lazyRetry } from "../lib/lazy-retry";
import { Navigate, Route, Routes } from "react-router";
import { FullAreaLoader } from "../components/full-area-loader";
import { ShellLayout } from "../components/layout";
import { RequireOrganization } from "../components/session/require-organization";
import { RequireSession } from "../components/session/require-session";
import { strings } from "../config/strings";

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

const s = strings.screens;

/** The screens inside the shell (spec §2), each with the name its loader announces. */
const shellScreens: { path: string; name: string; Page: ComponentType }[] = [
  { path: "dashboard", name: s.dashboard, Page: DashboardPage },
  { path: "orders", name: s.orders, Page: OrderListPage },
  { path: "call-logs", name: s.callLogs, Page: CallLogListPage },
  { path: "phone-numbers", name: s.phoneNumbers, Page: PhoneNumberListPage },
  { path: "agent/:agentID", name: s.editAgent, Page: AgentEditPage },
  { path: "campaigns", name: s.campaigns, Page: CampaignListPage },
  { path: "campaigns/create", name: s.createCampaign, Page: CampaignCreatePage },
  { path: "campaigns/edit/:id", name: s.editCampaign, Page: CampaignEditPage },
  { path: "campaigns/:id/calls", name: s.campaignCalls, Page: CampaignCallsPage },
  { path: "billing", name: s.billing, Page: BillingPage },
  { path: "billing/documents/:id", name: s.billing, Page: BillingDocumentPage },
  { path: "subscriptions", name: s.subscriptions, Page: SubscriptionsPage },
  { path: "calendar", name: s.calendar, Page: CalendarPage },
  { path: "calendar-permission", name: s.calendarPermission, Page: CalendarPermissionPage },
];

/**
 * A screen inside a Suspense boundary of its own, keyed by its route. react-router makes every navigation
 * a React transition, and a transition keeps a boundary that already shows something as it is until the
 * next screen is ready: with one boundary shared by every screen, the previous screen stayed, with no
 * sign of progress, while the next one's code downloaded. A boundary new to the tree shows its fallback
 * at once, so the content area shows the loader (the sidebar and header stay) until the code is there.
 * Moving within a route (another agent, another campaign) keeps the same boundary and the screen's state.
 */
function screen(route: string, name: string, Page: ComponentType) {
  return (
    <Suspense key={route} fallback={<FullAreaLoader label={`${strings.loading} ${name}`} />}>
      <Page />
    </Suspense>
  );
}

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
        {shellScreens.map(({ path, name, Page }) => (
          <Route key={path} path={path} element={screen(path, name, Page)} />
        ))}
        <Route path="*" element={<Navigate to="/dashboard" replace />} />
      </Route>
      </Routes>
    </Suspense>
  );
}
