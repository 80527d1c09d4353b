import {
  CalendarOutlined,
  CreditCardOutlined,
  DashboardOutlined,
  FieldNumberOutlined,
  NotificationOutlined,
  PhoneOutlined,
  RobotOutlined,
} from "@ant-design/icons";
import type { ResourceProps } from "@refinedev/core";
import type { ReactNode } from "react";
import type { Resource } from "../../contract/permissions";
import { strings } from "./strings";

/**
 * Where the sidebar's Agents item leads: not an agent but the route that finds the most recently edited
 * agent (GET /agent/, newest first) and redirects to /agent/{id}; an organisation with none gets its
 * first agent from the default template there.
 */
export const AGENTS_ENTRY_PATH = "/agent/new";

export interface SidebarEntry {
  label: string;
  /** Shown on hover; passes through sanitizeHtml before it is rendered as HTML. */
  tooltip: string;
  icon: ReactNode;
  /** Where the item leads. */
  to: string;
  /** Path sections under which the item is the active one. */
  sections: string[];
}

export interface ConsoleResource {
  /** The permission table's resource name (contract/permissions.ts). */
  name: Resource;
  label: string;
  list?: string;
  create?: string;
  edit?: string;
  show?: string;
  /** Present for the seven sidebar items; their order here is the sidebar's order (spec §2). */
  sidebar?: SidebarEntry;
}

/** Every screen of the console, once: `<Refine resources>` and the sidebar both read this list. */
export const consoleResources: ConsoleResource[] = [
  {
    name: "dashboard",
    label: strings.screens.dashboard,
    list: "/dashboard",
    sidebar: { ...strings.nav.dashboard, icon: <DashboardOutlined />, to: "/dashboard", sections: ["/dashboard"] },
  },
  {
    name: "agent",
    label: strings.nav.agents.label,
    edit: "/agent/:id",
    // "Agents" opens the most recently edited agent: AGENTS_ENTRY_PATH resolves it (or makes the first
    // one) and replaces itself with /agent/{id}. Any /agent/* path keeps the item highlighted.
    sidebar: { ...strings.nav.agents, icon: <RobotOutlined />, to: AGENTS_ENTRY_PATH, sections: ["/agent"] },
  },
  {
    name: "call",
    label: strings.screens.callLogs,
    list: "/call-logs",
    sidebar: { ...strings.nav.calls, icon: <PhoneOutlined />, to: "/call-logs", sections: ["/call-logs"] },
  },
  {
    name: "phonenumber",
    label: strings.screens.phoneNumbers,
    list: "/phone-numbers",
    sidebar: {
      ...strings.nav.phoneNumbers,
      icon: <FieldNumberOutlined />,
      to: "/phone-numbers",
      sections: ["/phone-numbers"],
    },
  },
  {
    name: "campaign",
    label: strings.screens.campaigns,
    list: "/campaigns",
    create: "/campaigns/create",
    edit: "/campaigns/edit/:id",
    sidebar: { ...strings.nav.campaigns, icon: <NotificationOutlined />, to: "/campaigns", sections: ["/campaigns"] },
  },
  {
    name: "appointment",
    label: strings.screens.calendar,
    list: "/calendar",
    sidebar: {
      ...strings.nav.calendar,
      icon: <CalendarOutlined />,
      to: "/calendar",
      sections: ["/calendar", "/calendar-permission"],
    },
  },
  {
    name: "billing",
    label: strings.screens.billing,
    list: "/billing",
    sidebar: { ...strings.nav.billing, icon: <CreditCardOutlined />, to: "/billing", sections: ["/billing"] },
  },
  { name: "order", label: strings.screens.orders, list: "/orders" },
  { name: "subscription", label: strings.screens.subscriptions, list: "/subscriptions" },
  // Knowledge-base files have no screen of their own; the agent editor lists and deletes them.
  { name: "file", label: "Files" },
];

export const sidebarItems: SidebarEntry[] = consoleResources.flatMap((resource) =>
  resource.sidebar ? [resource.sidebar] : [],
);

export const refineResources: ResourceProps[] = consoleResources.map(
  ({ name, label, list, create, edit, show, sidebar }) => ({
    name,
    ...(list ? { list } : {}),
    ...(create ? { create } : {}),
    ...(edit ? { edit } : {}),
    ...(show ? { show } : {}),
    meta: { label, hide: !sidebar },
  }),
);

/** The sidebar item a path belongs to: the section equals the path or is a whole-segment prefix of it. */
export function activeSidebarItem(pathname: string): SidebarEntry | undefined {
  return sidebarItems.find((item) =>
    item.sections.some((section) => pathname === section || pathname.startsWith(`${section}/`)),
  );
}
