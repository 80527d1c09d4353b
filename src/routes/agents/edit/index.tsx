import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function AgentEditPage() {
  return <ScreenPlaceholder title={strings.screens.editAgent} />;
}
