import { Tag, Typography } from "antd";
import { strings } from "../../config/strings";
import { ListLoadError } from "../list-load-error";
import { formatInstant } from "./campaign-format";
import type { useCampaignEvents } from "./use-campaign-detail";

const text = strings.campaigns.detail;

/** The server's sentence often says who already ("Started by Ada Lovelace (3 contacts queued)."): no second "by Ada Lovelace". */
export function namesActor(detail: string, actor: string): boolean {
  return detail.includes(`by ${actor}`);
}

/** What happened to the campaign, newest first (GET /campaign/{id}/events): starts, pauses with their reasons, edits. */
export function CampaignEvents({ events, query }: ReturnType<typeof useCampaignEvents>) {
  if (query.isError) return <ListLoadError query={query} title={text.eventsFailed} retryLabel={strings.campaigns.retry} />;
  if (events.length === 0) return <Typography.Text type="secondary">{query.isPending ? "…" : text.eventsEmpty}</Typography.Text>;
  return (
    <ol className="campaign-events" aria-label={text.eventsTitle}>
      {events.map((event) => (
        <li key={event.id}>
          <time dateTime={event.at}>
            <Typography.Text type="secondary">{formatInstant(event.at)}</Typography.Text>
          </time>
          <Tag>{event.kind}</Tag>
          <span className="campaign-events__detail">
            {event.detail}
            {event.actor && !namesActor(event.detail, event.actor) && <Typography.Text type="secondary"> {text.by(event.actor)}</Typography.Text>}
          </span>
        </li>
      ))}
    </ol>
  );
}
