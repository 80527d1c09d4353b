import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function CalendarPage() {
  return <ScreenPlaceholder title={strings.screens.calendar} />;
}
