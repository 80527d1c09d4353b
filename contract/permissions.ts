import type { Role } from "./roles";

/**
 * The one permission table (ARCHITECTURE.md §4). The server enforces it (403) and the console's
 * access-control provider reads it to hide or disable what a role may not do.
 * Actions follow Refine's names (list, show, create, edit, delete) plus a few of the product's own.
 */
export const RESOURCES = [
  "dashboard",
  "organization",
  "agent",
  "call",
  "phonenumber",
  "file",
  "campaign",
  "appointment",
  "calendar",
  "order",
  "billing",
  "subscription",
] as const;
export type Resource = (typeof RESOURCES)[number];

export const ACTIONS = ["list", "show", "create", "edit", "delete", "invite", "manage"] as const;
export type Action = (typeof ACTIONS)[number];

const READ: readonly Action[] = ["list", "show"];
const WRITE: readonly Action[] = ["list", "show", "create", "edit", "delete"];
const ALL: readonly Action[] = ACTIONS;

export const PERMISSIONS: Record<Role, Record<Resource, readonly Action[]>> = {
  "org:admin": {
    dashboard: ALL,
    organization: ALL,
    agent: ALL,
    call: ALL,
    phonenumber: ALL,
    file: ALL,
    campaign: ALL,
    appointment: ALL,
    calendar: ALL,
    order: ALL,
    billing: ALL,
    subscription: ALL,
  },
  // Members read everything, build agents, campaigns and appointments and start calls;
  // they may not delete phone numbers, manage billing or subscriptions, or invite members.
  "org:member": {
    dashboard: READ,
    organization: READ,
    agent: WRITE,
    call: ["list", "show", "create"],
    phonenumber: ["list", "show", "create", "edit"],
    file: WRITE,
    // Members create, edit and run campaigns and add to the do-not-call list; admins also delete (both).
    campaign: ["list", "show", "create", "edit"],
    // Members book, reschedule and cancel appointments (DELETE cancels; nothing is destroyed).
    appointment: WRITE,
    // The calendar's availability rules and outside-calendar connections: members read, admins change.
    calendar: READ,
    // Members create, import and edit orders, call now and stop a follow-up; admins also mark orders paid
    // and delete them, and manage store integrations and follow-up settings ("manage").
    order: ["list", "show", "create", "edit"],
    billing: READ,
    subscription: READ,
  },
};

export function can(role: Role | null | undefined, resource: Resource, action: Action): boolean {
  if (!role) return false;
  return PERMISSIONS[role]?.[resource]?.includes(action) ?? false;
}
