import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function CampaignCallsPage() {
  return <ScreenPlaceholder title={strings.screens.campaignCalls} />;
}
