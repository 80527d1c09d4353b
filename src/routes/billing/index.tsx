import { ScreenPlaceholder } from "../../components/screen-placeholder";
import { strings } from "../../config/strings";

export default function BillingPage() {
  return <ScreenPlaceholder title={strings.screens.billing} />;
}
