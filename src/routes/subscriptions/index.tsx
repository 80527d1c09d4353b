import { ScreenPlaceholder } from "../../components/screen-placeholder";
import { strings } from "../../config/strings";

export default function SubscriptionsPage() {
  return <ScreenPlaceholder title={strings.screens.subscriptions} />;
}
