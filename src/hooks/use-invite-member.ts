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

  /** The server's answer on success (with `invitation_url` in local mode), null otherwise. */
  const send = useCallback(
    async ({ email_address, role = DEFAULT_INVITE_ROLE }: InviteBody): Promise<InviteResponse | null> => {
      if (!activeOrganizationId) {
        open?.({ type: "error", message: strings.invite.noOrganization });
        return null;
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
          return null;
        }
        open?.({ type: "success", message: strings.invite.success });
        return { status: "success", ...(typeof data.invitation_url === "string" ? { invitation_url: data.invitation_url } : {}) };
      } catch (error) {
        const detail = isApiError(error) ? error.detail : undefined;
        open?.({ type: "error", message: detail || strings.invite.failed });
        return null;
      } finally {
        setIsLoading(false);
      }
    },
    [activeOrganizationId, dataProvider, open],
  );

  /** Spec §5: true when the invitation went out, false otherwise. */
  const invite = useCallback(async (body: InviteBody): Promise<boolean> => (await send(body)) !== null, [send]);

  return { invite, send, isLoading };
}
