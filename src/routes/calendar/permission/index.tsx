import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function CalendarPermissionPage() {
  return <ScreenPlaceholder title={strings.screens.calendarPermission} />;
}
