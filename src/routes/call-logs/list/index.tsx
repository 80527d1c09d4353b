import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function CallLogListPage() {
  return <ScreenPlaceholder title={strings.screens.callLogs} />;
}
