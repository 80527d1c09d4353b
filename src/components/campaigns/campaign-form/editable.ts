import type { Campaign } from "../../../../contract/campaign";
import { CAMPAIGN_FIELDS, EDITABLE_FIELDS, type CampaignField } from "../../../../contract/campaign-shared";
import { strings } from "../../../config/strings";

/** Which fields the campaign's state lets change (contract EDITABLE_FIELDS), and why one is locked. */
export interface Editable {
  can: (field: CampaignField) => boolean;
  /** The sentence under a locked field; undefined when it may change. */
  reason: (field: CampaignField) => string | undefined;
  /** The campaign has been started (running, paused or scheduled): a retry edit applies at once to the contacts waiting for a retry. */
  retriesWaiting?: boolean;
}

export function editableFor(campaign: Campaign | undefined, canEdit: boolean): Editable {
  const allowed = new Set<CampaignField>(campaign ? EDITABLE_FIELDS[campaign.status] : CAMPAIGN_FIELDS);
  const live = campaign?.status === "running" || campaign?.status === "scheduled";
  return {
    can: (field) => canEdit && allowed.has(field),
    reason: (field) => (allowed.has(field) ? undefined : live ? strings.campaigns.form.needsPause : strings.campaigns.form.finishedBody),
    retriesWaiting: live || campaign?.status === "paused",
  };
}
