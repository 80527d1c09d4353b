import { useDataProvider, useNotification } from "@refinedev/core";
import { useCallback, useState } from "react";
import { apiPaths } from "../../contract/api";
import type { InviteBody, InviteResponse } from "../../contract/organization";
import { DEFAULT_INVITE_ROLE } from "../../contract/roles";
import { useAuthSession } from "../auth/session";
import { strings } from "../config/strings";
import { isApiError } from "../providers/data/fetch-wrapper";

/**
 * The invitation action (spec §2, §5, §8): POST /organization/{activeOrganizationId}/invite.
 * Resolves true when the server answered `{status: "success"}`, false otherwise; every outcome is a toast.
 */
export function useInviteMember() {
  const { activeOrganizationId } = useAuthSession();
  const dataProvider = useDataProvider();
  const { open } = useNotification();
  const [isLoading, setIsLoading] = useState(false);

  const invite = useCallback(
    async ({ email_address, role = DEFAULT_INVITE_ROLE }: InviteBody): Promise<boolean> => {
      if (!activeOrganizationId) {
        open?.({ type: "error", message: strings.invite.noOrganization });
        return false;
      }
      const custom = dataProvider().custom;
      if (!custom) throw new Error("The data provider has no custom()");

      setIsLoading(true);
      try {
        const { data } = await custom<InviteResponse & Record<string, unknown>>({
          url: apiPaths.invite(activeOrganizationId),
          method: "post",
          payload: { email_address, role },
        });
        if (data?.status !== "success") {
          open?.({ type: "error", message: strings.invite.failed });
          return false;
        }
        open?.({ type: "success", message: strings.invite.success });
        return true;
      } catch (error) {
        const detail = isApiError(error) ? error.detail : undefined;
        open?.({ type: "error", message: detail || strings.invite.failed });
        return false;
      } finally {
        setIsLoading(false);
      }
    },
    [activeOrganizationId, dataProvider, open],
  );

  return { invite, isLoading };
}
