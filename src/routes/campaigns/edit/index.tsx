import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function CampaignEditPage() {
  return <ScreenPlaceholder title={strings.screens.editCampaign} />;
}
