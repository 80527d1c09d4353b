import { useOne } from "@refinedev/core";
import { Alert, Button, Skeleton } from "antd";
import { useEffect } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";
import type { Campaign } from "../../../../contract/campaign";
import { CampaignForm } from "../../../components/campaigns/campaign-form";
import { isStep, type StepKey } from "../../../components/campaigns/campaign-form/form-values";
import "../../../components/campaigns/campaigns.css";
import { ListLoadError } from "../../../components/list-load-error";
import { strings } from "../../../config/strings";
import type { ApiError } from "../../../providers/data/fetch-wrapper";

const text = strings.campaigns;

/**
 * Edit Campaign (and the rest of Create Campaign, `new=1`): the step form over GET /campaign/{id}, the
 * step in the URL (?step=) so a reload or a link opens the same one.
 */
export default function CampaignEditPage() {
  const { id = "" } = useParams();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const isNew = params.get("new") === "1";
  const requested = params.get("step");
  const step: StepKey = isStep(requested) ? requested : "basics";
  const { result, query } = useOne<Campaign, ApiError>({ resource: "campaign", id, errorNotification: false });
  const campaign = result?.id === id ? result : undefined;
  const title = isNew ? strings.screens.createCampaign : strings.screens.editCampaign;

  useEffect(() => {
    document.title = `${title} · ${strings.appName}`;
  }, [title]);

  const setStep = (next: StepKey) =>
    setParams(
      (current) => {
        current.set("step", next);
        return current;
      },
      { replace: true },
    );

  let body;
  if (query.isError && (query.error as ApiError | null)?.statusCode === 404)
    body = (
      <Alert
        type="warning"
        showIcon
        message={text.detail.notFound}
        description={text.detail.notFoundDetail}
        action={
          <Button size="small" onClick={() => navigate("/campaigns")}>
            {text.detail.back}
          </Button>
        }
      />
    );
  else if (query.isError) body = <ListLoadError query={query} title={text.detail.loadFailed} retryLabel={text.retry} />;
  else if (!campaign)
    body = (
      <div role="status" aria-label={text.form.loading}>
        <Skeleton active />
      </div>
    );
  else body = <CampaignForm key={campaign.id} campaign={campaign} step={step} onStep={setStep} />;

  return (
    <section className="campaign-page">
      <h1 className="campaigns__title" style={{ marginBottom: 16 }}>
        {title}
      </h1>
      {body}
    </section>
  );
}
