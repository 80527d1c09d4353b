import { ScreenPlaceholder } from "../../components/screen-placeholder";
import { strings } from "../../config/strings";

export default function DashboardPage() {
  return <ScreenPlaceholder title={strings.screens.dashboard} />;
}
