import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function CampaignListPage() {
  return <ScreenPlaceholder title={strings.screens.campaigns} />;
}
