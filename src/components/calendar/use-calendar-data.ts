import { useCan, useCreate, useCustom, useCustomMutation, useDelete, useList, useUpdate, type CrudFilter } from "@refinedev/core";
import { keepPreviousData, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { APPOINTMENT_LIST_MAX_LIMIT, calendarPaths, type AppointmentStatus } from "../../../contract/calendar-shared";
import type { Appointment, AppointmentInput, AppointmentUpdate, Availability, AvailabilityInput, Slot } from "../../../contract/calendar";
import type { ApiError } from "../../providers/data/fetch-wrapper";

/** The days the calendar shows, in the calendar's zone (GET /appointment/ and /availability/slots read them so). */
export interface CalendarDays {
  startDate: string;
  endDate: string;
}

export interface AppointmentFilters {
  agentId?: string;
  status?: AppointmentStatus;
  search?: string;
}

/** GET /availability/ (the organisation's rules, or an agent's: its own, else the organisation's marked inherited). */
export function useAvailability(agentId: string | undefined) {
  const { result, query } = useCustom<{ data: Availability }, ApiError>({
    url: calendarPaths.availability,
    method: "get",
    config: { query: agentId ? { agentId } : {} },
    errorNotification: false,
  });
  return { availability: result.data?.data, query };
}

/** GET /availability/slots for the days shown: the free times agents may offer ({start, end} instants). */
export function useFreeSlots(days: CalendarDays | null, agentId: string | undefined) {
  const { result, query } = useCustom<{ data: Slot[]; timezone: string }, ApiError>({
    url: calendarPaths.availabilitySlots,
    method: "get",
    config: { query: days ? { startDate: days.startDate, endDate: days.endDate, ...(agentId ? { agentId } : {}) } : {} },
    queryOptions: { enabled: days !== null, placeholderData: keepPreviousData },
    errorNotification: false,
  });
  return { slots: result.data?.data ?? [], query };
}

/**
 * GET /appointment/ for the days shown, in one page of up to APPOINTMENT_LIST_MAX_LIMIT (a busy month
 * fits); `total` above what came says the page was cut. The last answer stays on screen while the next
 * period loads, so moving a week does not blank the calendar.
 */
export function useAppointments(days: CalendarDays | null, filters: AppointmentFilters) {
  const crudFilters: CrudFilter[] = days
    ? [
        { field: "startDate", operator: "eq", value: days.startDate },
        { field: "endDate", operator: "eq", value: days.endDate },
        ...(filters.agentId ? [{ field: "agentId", operator: "eq" as const, value: filters.agentId }] : []),
        ...(filters.status ? [{ field: "status", operator: "eq" as const, value: filters.status }] : []),
        ...(filters.search ? [{ field: "search", operator: "contains" as const, value: filters.search }] : []),
      ]
    : [];
  const { result, query } = useList<Appointment, ApiError>({
    resource: "appointment",
    pagination: { currentPage: 1, pageSize: APPOINTMENT_LIST_MAX_LIMIT },
    filters: crudFilters,
    queryOptions: { enabled: days !== null, placeholderData: keepPreviousData },
    errorNotification: false,
  });
  return { appointments: result.data ?? [], total: result.total ?? 0, query };
}

/** Whether the organisation has any appointment at all (asked only while the period shown has none). */
export function useHasAppointments(enabled: boolean) {
  const { result, query } = useList<Appointment, ApiError>({
    resource: "appointment",
    pagination: { currentPage: 1, pageSize: 1 },
    queryOptions: { enabled },
    errorNotification: false,
  });
  return { hasAny: query.isSuccess ? (result.total ?? 0) > 0 : undefined };
}

/** The appointments' writes; the screen says how each went (no Refine notifications). */
export function useAppointmentWrites() {
  const { mutateAsync: create, mutation: creating } = useCreate<Appointment, ApiError, AppointmentInput>();
  const { mutateAsync: update, mutation: updating } = useUpdate<Appointment, ApiError, AppointmentUpdate>();
  const { mutateAsync: remove, mutation: removing } = useDelete<Appointment, ApiError>();
  const quiet = { successNotification: false as const, errorNotification: false as const };
  return {
    create: async (values: AppointmentInput) => (await create({ resource: "appointment", values, ...quiet })).data,
    update: async (id: string, values: AppointmentUpdate) => (await update({ resource: "appointment", id, values, ...quiet })).data,
    /** DELETE /appointment/{id}: cancels it (the record stays, status cancelled). */
    cancel: async (id: string) => {
      await remove({ resource: "appointment", id, ...quiet });
    },
    isPending: creating.isPending || updating.isPending || removing.isPending,
  };
}

/** PUT /availability/ (admins): the organisation's rules, or an agent's own with agent_id. */
export function useSaveAvailability() {
  const { mutateAsync, mutation } = useCustomMutation<{ data: Availability }, ApiError>();
  const save = async (values: AvailabilityInput) =>
    (await mutateAsync({ url: calendarPaths.availability, method: "put", values, successNotification: false, errorNotification: false })).data.data;
  return { save, isPending: mutation.isPending };
}

/** What the role may do here (contract/permissions.ts): members book and edit appointments; admins also set availability. */
export function useCalendarPermissions() {
  const create = useCan({ resource: "appointment", action: "create" });
  const edit = useCan({ resource: "appointment", action: "edit" });
  const cancel = useCan({ resource: "appointment", action: "delete" });
  const availability = useCan({ resource: "calendar", action: "edit" });
  return {
    canCreate: create.data?.can === true,
    canEdit: edit.data?.can === true,
    canCancel: cancel.data?.can === true,
    canEditAvailability: availability.data?.can === true,
  };
}

const asksAvailability = (part: unknown) =>
  typeof part === "object" && part !== null && typeof (part as { url?: unknown }).url === "string" && (part as { url: string }).url.startsWith(calendarPaths.availability);

/**
 * Asks again for the rules and the free slots (GET /availability/…): after the rules change, and after an
 * appointment is made, moved or cancelled (its time is no longer, or again, free).
 */
export function useRefreshAvailability() {
  const client = useQueryClient();
  return useCallback(() => void client.invalidateQueries({ predicate: (query) => query.queryKey.some(asksAvailability) }), [client]);
}
