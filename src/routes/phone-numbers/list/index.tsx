import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function PhoneNumberListPage() {
  return <ScreenPlaceholder title={strings.screens.phoneNumbers} />;
}
