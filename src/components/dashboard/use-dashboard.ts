import { useCustom, useCustomMutation } from "@refinedev/core";
import { keepPreviousData } from "@tanstack/react-query";
import type { Dashboard, DashboardQuery, OrganizationSettings } from "../../../contract/dashboard";
import { dashboardPath, organizationSettingsPath } from "../../../contract/dashboard-paths";
import type { ApiError } from "../../providers/data/fetch-wrapper";

/** The active organisation's settings (GET /organization/settings): its time zone. */
export function useOrganizationSettings() {
  const { result, query } = useCustom<{ data: OrganizationSettings }, ApiError>({
    url: organizationSettingsPath,
    method: "get",
    errorNotification: false,
  });
  return { timeZone: result.data?.data?.timezone, query };
}

/**
 * GET /dashboard/ for `params`; null waits (the organisation's time zone is not known yet). While
 * another period loads, the figures shown stay those of the last answer (marked as updating), so the
 * page does not fall back to its skeleton on every change of the picker.
 */
export function useDashboard(params: DashboardQuery | null) {
  const { result, query } = useCustom<{ data: Dashboard }, ApiError>({
    url: dashboardPath,
    method: "get",
    config: { query: params ?? {} },
    queryOptions: { enabled: params !== null, placeholderData: keepPreviousData },
    errorNotification: false,
  });
  return { dashboard: result.data?.data, query };
}

/** PATCH /organization/settings {timezone} (admins). */
export function useUpdateTimeZone() {
  const { mutateAsync, mutation } = useCustomMutation<{ data: OrganizationSettings }, ApiError>();
  const update = (timezone: string) =>
    mutateAsync({
      url: organizationSettingsPath,
      method: "patch",
      values: { timezone },
      successNotification: false,
      errorNotification: false,
    });
  return { update, isPending: mutation.isPending };
}
