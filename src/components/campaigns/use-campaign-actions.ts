import { useCustomMutation, useDelete, useInvalidate } from "@refinedev/core";
import { App } from "antd";
import { useCallback, useState } from "react";
import type { Campaign } from "../../../contract/campaign";
import { CAMPAIGN_PATHS, type CampaignAction } from "../../../contract/campaign-shared";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";

const text = strings.campaigns;

export type CampaignCommand = CampaignAction | "delete";

/**
 * Start, pause, resume (POST /campaign/{id}/{action}), cancel (the same, after a confirmation) and
 * delete (DELETE /campaign/{id}, after a confirmation). A refusal (409 naming the state, 400 "add
 * contacts first") shows the server's sentence. The campaign's queries are asked again afterwards, and
 * `onDone` lets a screen refresh its own (contacts, history).
 */
export function useCampaignActions(onDone?: (command: CampaignCommand, campaign: Campaign) => void) {
  const { modal } = App.useApp();
  const toasts = useToasts();
  const invalidate = useInvalidate();
  const { mutateAsync: post } = useCustomMutation<{ data?: Campaign }, ApiError, undefined>();
  const { mutateAsync: remove } = useDelete<Campaign, ApiError>();
  const [pending, setPending] = useState<{ id: string; command: CampaignCommand } | null>(null);

  const refresh = useCallback(
    async (campaign: Campaign, command: CampaignCommand) => {
      await invalidate({ resource: "campaign", invalidates: command === "delete" ? ["list"] : ["list", "detail"], id: campaign.id });
      onDone?.(command, campaign);
    },
    [invalidate, onDone],
  );

  /** Resolves to whether it worked (a toast says so either way). */
  const transition = useCallback(
    async (campaign: Campaign, action: CampaignAction): Promise<boolean> => {
      setPending({ id: campaign.id, command: action });
      try {
        await post({ url: CAMPAIGN_PATHS.action(campaign.id, action), method: "post", values: undefined, successNotification: false, errorNotification: false });
        toasts.success(text.done[action]);
        await refresh(campaign, action);
        return true;
      } catch (error) {
        toasts.error(text.failed[action], (error as ApiError | undefined)?.message);
        return false;
      } finally {
        setPending(null);
      }
    },
    [post, refresh, toasts],
  );

  const deleteCampaign = useCallback(
    async (campaign: Campaign): Promise<boolean> => {
      setPending({ id: campaign.id, command: "delete" });
      try {
        await remove({ resource: "campaign", id: campaign.id, successNotification: false, errorNotification: false });
        toasts.success(text.done.delete);
        await refresh(campaign, "delete");
        return true;
      } catch (error) {
        toasts.error(text.failed.delete, (error as ApiError | undefined)?.message);
        return false;
      } finally {
        setPending(null);
      }
    },
    [remove, refresh, toasts],
  );

  /** Runs `command`; cancel and delete ask first (they cannot be undone). */
  const run = useCallback(
    (campaign: Campaign, command: CampaignCommand) => {
      if (command === "cancel" || command === "delete") {
        const cancel = command === "cancel";
        modal.confirm({
          title: cancel ? text.cancelConfirmTitle : text.deleteConfirmTitle,
          content: cancel ? text.cancelConfirmBody(campaign.name) : text.deleteConfirmBody(campaign.name),
          okText: cancel ? text.cancelConfirmOk : text.deleteConfirmOk,
          okButtonProps: { danger: true },
          cancelText: text.keep,
          onOk: async () => {
            await (cancel ? transition(campaign, "cancel") : deleteCampaign(campaign));
          },
        });
        return;
      }
      void transition(campaign, command);
    },
    [deleteCampaign, modal, transition],
  );

  const isPending = (campaign: Campaign, command?: CampaignCommand) =>
    pending !== null && pending.id === campaign.id && (command === undefined || pending.command === command);

  return { run, transition, isPending };
}
