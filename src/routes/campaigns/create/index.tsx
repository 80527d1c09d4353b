import { useEffect } from "react";
import { useNavigate } from "react-router";
import { CampaignForm } from "../../../components/campaigns/campaign-form";
import "../../../components/campaigns/campaigns.css";
import { strings } from "../../../config/strings";

/**
 * Create Campaign: the first step (name, agent, caller number). "Next" makes the draft, and the rest of
 * the steps continue on its edit page (/campaigns/edit/{id}?step=contacts&new=1), so a reload keeps it.
 */
export default function CampaignCreatePage() {
  const navigate = useNavigate();
  useEffect(() => {
    document.title = `${strings.screens.createCampaign} · ${strings.appName}`;
  }, []);
  return (
    <section className="campaign-page">
      <h1 className="campaigns__title" style={{ marginBottom: 16 }}>
        {strings.screens.createCampaign}
      </h1>
      <CampaignForm step="basics" onStep={() => undefined} onCreated={(campaign) => navigate(`/campaigns/edit/${encodeURIComponent(campaign.id)}?step=contacts&new=1`, { replace: true })} />
    </section>
  );
}
