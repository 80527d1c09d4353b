import { CaretRightOutlined, DeleteOutlined, EditOutlined, PauseOutlined, StopOutlined } from "@ant-design/icons";
import { Button, Space, Tooltip } from "antd";
import type { ReactNode } from "react";
import { useNavigate } from "react-router";
import type { Campaign } from "../../../contract/campaign";
import { canTransition, DELETABLE_CAMPAIGN_STATUSES, type CampaignAction } from "../../../contract/campaign-shared";
import { strings } from "../../config/strings";
import { ExportCampaignButton } from "./export-campaign-button";
import type { useCampaignActions } from "./use-campaign-actions";
import type { useCampaignPermissions } from "./use-campaign-permissions";

const text = strings.campaigns;

const TRANSITION_ICONS: Record<Exclude<CampaignAction, "cancel">, ReactNode> = {
  start: <CaretRightOutlined />,
  pause: <PauseOutlined />,
  resume: <CaretRightOutlined />,
};

/**
 * What can be done to a campaign now: the actions its state allows (CAMPAIGN_TRANSITIONS,
 * DELETABLE_CAMPAIGN_STATUSES) that the role may do (edit runs it; delete is the admins'). Each button's
 * accessible name carries the campaign's name, so a row's buttons are told apart.
 */
export function CampaignActions({
  campaign,
  actions,
  permissions,
  size = "small",
  compact = false,
}: {
  campaign: Campaign;
  actions: ReturnType<typeof useCampaignActions>;
  permissions: ReturnType<typeof useCampaignPermissions>;
  size?: "small" | "middle";
  /** A table row: the state's action with its word, the others as icons (their names in a tooltip and for screen readers). */
  compact?: boolean;
}) {
  const navigate = useNavigate();
  const { canEdit, canDelete } = permissions;
  const label = (action: string) => text.actionOn(action, campaign.name);
  const transitions = (["start", "pause", "resume"] as const).filter((action) => canEdit && canTransition(action, campaign.status));
  /** The button's word, or (compact) nothing but a tooltip. */
  const word = (action: string, button: ReactNode) => (compact ? <Tooltip title={action}>{button}</Tooltip> : button);

  return (
    <Space size={4} wrap={!compact}>
      {transitions.map((action) => (
        <Button
          key={action}
          size={size}
          type={action === "pause" ? "default" : "primary"}
          icon={TRANSITION_ICONS[action]}
          loading={actions.isPending(campaign, action)}
          aria-label={label(text.actions[action])}
          onClick={() => actions.run(campaign, action)}
        >
          {text.actions[action]}
        </Button>
      ))}
      {canEdit &&
        word(
          text.actions.edit,
          <Button size={size} icon={<EditOutlined />} aria-label={label(text.actions.edit)} onClick={() => navigate(`/campaigns/edit/${encodeURIComponent(campaign.id)}`)}>
            {!compact && text.actions.edit}
          </Button>,
        )}
      <ExportCampaignButton campaign={campaign} size={size} compact={compact} />
      {canEdit &&
        canTransition("cancel", campaign.status) &&
        word(
          text.actions.cancel,
          <Button size={size} danger icon={<StopOutlined />} loading={actions.isPending(campaign, "cancel")} aria-label={label(text.actions.cancel)} onClick={() => actions.run(campaign, "cancel")}>
            {!compact && text.actions.cancel}
          </Button>,
        )}
      {canDelete &&
        DELETABLE_CAMPAIGN_STATUSES.includes(campaign.status) &&
        word(
          text.actions.delete,
          <Button size={size} danger icon={<DeleteOutlined />} loading={actions.isPending(campaign, "delete")} aria-label={label(text.actions.delete)} onClick={() => actions.run(campaign, "delete")}>
            {!compact && text.actions.delete}
          </Button>,
        )}
    </Space>
  );
}
