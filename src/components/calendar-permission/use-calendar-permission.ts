import { useCan, useCustom, useCustomMutation } from "@refinedev/core";
import type { CalendarConnection, CalendarDisconnectResult } from "../../../contract/calendar";
import { calendarPaths } from "../../../contract/calendar-shared";
import type { ApiError } from "../../providers/data/fetch-wrapper";

/** What the role may do here (contract/permissions.ts): members look (calendar list), admins manage. */
export function useCalendarPermissions() {
  const manage = useCan({ resource: "calendar", action: "manage" });
  return { canManage: manage.data?.can === true, known: manage.data !== undefined };
}

/** GET /calendar/connections: the organisation's connections and whether Google is set up on the server. */
export function useCalendarConnections() {
  const { result, query } = useCustom<{ data: CalendarConnection[]; google_configured: boolean }, ApiError>({
    url: calendarPaths.connections,
    method: "get",
    errorNotification: false,
  });
  const body = result.data as { data?: CalendarConnection[]; google_configured?: boolean } | undefined;
  return { connections: body?.data, googleConfigured: body?.google_configured, query };
}

/** GET /calendar/feed (admins): the feed's secret address, made on the first ask. */
export function useCalendarFeed(enabled: boolean) {
  const { result, query } = useCustom<{ data: { url: string } }, ApiError>({
    url: calendarPaths.feed,
    method: "get",
    queryOptions: { enabled },
    errorNotification: false,
  });
  return { url: (result.data as { data?: { url: string } } | undefined)?.data?.url, query };
}

/** The screen's writes: start and finish Google's flow, disconnect, replace the feed's address. */
export function useCalendarActions() {
  const { mutateAsync, mutation } = useCustomMutation<{ data: unknown }, ApiError>();
  const send = async <T>(url: string, method: "post" | "delete", values: object = {}) =>
    ((await mutateAsync({ url, method, values, successNotification: false, errorNotification: false })).data as { data: T }).data;
  return {
    pending: mutation.isPending,
    startGoogle: () => send<{ url: string }>(calendarPaths.googleConnect, "post"),
    finishGoogle: (code: string, state: string) => send<CalendarConnection>(calendarPaths.googleCallback, "post", { code, state }),
    disconnect: (id: string) => send<CalendarDisconnectResult>(calendarPaths.connection(id), "delete"),
    rotateFeed: () => send<{ url: string }>(calendarPaths.feedRotate, "post"),
  };
}

/** Leaving for Google's consent page (one object, so tests can watch it instead of navigating jsdom). */
export const browserNavigation = {
  assign(url: string) {
    window.location.assign(url);
  },
};
