import { useCustom, useOne } from "@refinedev/core";
import { keepPreviousData } from "@tanstack/react-query";
import type { Campaign, CampaignContact } from "../../../contract/campaign";
import { CAMPAIGN_PATHS, type ContactStatus } from "../../../contract/campaign-shared";
import type { CallOutcome } from "../../../contract/call-outcome";
import type { ListEnvelope } from "../../../contract/paging";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { CAMPAIGN_POLL_MS, isLive } from "./campaign-format";

/** GET /campaign/{id}/progress */
export interface CampaignProgressSeries {
  bucket_seconds: number;
  points: Array<{ at: string; calls: number; answered: number; ended: number }>;
}

/** GET /campaign/{id}/events */
export interface CampaignEvent {
  id: string;
  at: string;
  kind: string;
  detail: string;
  actor: string | null;
}

/** GET /campaign/{id}, asked again every few seconds while the campaign is running or scheduled, and not once it is not. */
export function useCampaign(id: string) {
  const { result, query } = useOne<Campaign, ApiError>({
    resource: "campaign",
    id,
    errorNotification: false,
    queryOptions: { refetchInterval: (current) => (isLive(current.state.data?.data?.status) ? CAMPAIGN_POLL_MS : false) },
  });
  return { campaign: result?.id === id ? result : undefined, query };
}

const every = (live: boolean) => (live ? CAMPAIGN_POLL_MS : false);

export interface ContactQuery {
  page: number;
  limit: number;
  status?: ContactStatus;
  outcome?: CallOutcome;
  search?: string;
}

/** GET /campaign/{id}/contacts with paging and filters; polled with the campaign. */
export function useCampaignContacts(id: string, params: ContactQuery, live: boolean) {
  const { result, query } = useCustom<ListEnvelope<CampaignContact>, ApiError>({
    url: CAMPAIGN_PATHS.contacts(id),
    method: "get",
    config: { query: { ...params } },
    queryOptions: { placeholderData: keepPreviousData, refetchInterval: every(live) },
    errorNotification: false,
  });
  return { contacts: result.data?.data ?? [], total: result.data?.total ?? 0, query };
}

export function useCampaignProgress(id: string, live: boolean) {
  const { result, query } = useCustom<{ data: CampaignProgressSeries }, ApiError>({
    url: CAMPAIGN_PATHS.progress(id),
    method: "get",
    queryOptions: { refetchInterval: every(live) },
    errorNotification: false,
  });
  return { progress: result.data?.data, query };
}

export function useCampaignEvents(id: string, live: boolean) {
  const { result, query } = useCustom<{ data: CampaignEvent[] }, ApiError>({
    url: CAMPAIGN_PATHS.events(id),
    method: "get",
    queryOptions: { refetchInterval: every(live) },
    errorNotification: false,
  });
  return { events: result.data?.data ?? [], query };
}
