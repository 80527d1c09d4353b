import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function CampaignCreatePage() {
  return <ScreenPlaceholder title={strings.screens.createCampaign} />;
}
