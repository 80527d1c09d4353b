import { useId } from "react";
import { Link } from "react-router";
import type { Dashboard } from "../../../contract/dashboard";
import { strings } from "../../config/strings";
import { finishedContacts, formatCount, formatInstant, formatPercent, formatRelative, pauseReasonText } from "../campaigns/campaign-format";

const text = strings.campaigns.card;

/** One campaign as GET /dashboard/ lists it under `campaigns.items` (contract/dashboard.ts). */
export type DashboardCampaignItem = Dashboard["campaigns"]["items"][number];

/** GET /dashboard/'s `campaigns`: how many run, and the campaigns to show. */
export type DashboardCampaigns = Dashboard["campaigns"];

/** The dashboard as an older server may answer it: without `campaigns` (the card is then left out). */
export type DashboardWithCampaigns = Omit<Dashboard, "campaigns"> & { campaigns?: DashboardCampaigns };

/**
 * The running campaigns and how far each has got, on the landing page: plain elements (no antd
 * Progress or List on the landing chunk). A paused one says why (its pause_reason, as text). Absent from
 * the answer: no card. Empty: a way to make one.
 */
export function CampaignsCard({ campaigns }: { campaigns: DashboardCampaigns | undefined }) {
  const titleId = useId();
  if (!campaigns) return null;
  return (
    <section aria-labelledby={titleId} className="dash-panel dash-panel--wide dash-campaigns">
      <div className="dash-panel__head">
        <h2 id={titleId} className="dash-panel__title">
          {text.title}
        </h2>
        {campaigns.running > 0 && <span className="dash-campaigns__running">{text.running(campaigns.running)}</span>}
        <Link to="/campaigns" className="dash-campaigns__all">
          {text.all}
        </Link>
      </div>
      {campaigns.items.length === 0 ? (
        <div className="dash-campaigns__empty">
          <p>{text.empty}</p>
          <p className="dash-campaigns__hint">{text.emptyHint}</p>
          <Link to="/campaigns/create" className="dash-first-run__action">
            {text.create}
          </Link>
        </div>
      ) : (
        <ul className="dash-campaigns__list">
          {campaigns.items.map((campaign) => {
            const percent = Math.round(Math.min(1, Math.max(0, campaign.progress)) * 100);
            const pauseReason = pauseReasonText(campaign);
            return (
              <li key={campaign.id} className="dash-campaigns__item">
                <div className="dash-campaigns__line">
                  <Link to={`/campaigns/${encodeURIComponent(campaign.id)}/calls`} aria-label={text.open(campaign.name)} className="dash-campaigns__name">
                    {campaign.name}
                  </Link>
                  <span className={`dash-campaigns__status dash-campaigns__status--${campaign.status}`}>{strings.campaigns.statuses[campaign.status] ?? campaign.status}</span>
                </div>
                <div className="dash-campaigns__bar" role="progressbar" aria-label={strings.campaigns.progressLabel(campaign.name)} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
                  <div className="dash-campaigns__fill" style={{ width: `${percent}%` }} />
                </div>
                {/* Why it stopped (an automatic pause waits for a person to resume it): said on the card, not on hover. */}
                {pauseReason && <p className="dash-campaigns__reason">{pauseReason}</p>}
                <div className="dash-campaigns__line dash-campaigns__meta">
                  <span>
                    {formatPercent(percent / 100)} · {strings.campaigns.finishedOf(formatCount(finishedContacts(campaign.counts)), formatCount(campaign.counts.total))}
                  </span>
                  {campaign.next_window_at && (
                    <time dateTime={campaign.next_window_at} title={strings.campaigns.nextWindowAt(formatInstant(campaign.next_window_at))}>
                      {strings.campaigns.nextWindow(formatRelative(campaign.next_window_at))}
                    </time>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
