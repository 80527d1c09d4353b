import { ScreenPlaceholder } from "../../../components/screen-placeholder";
import { strings } from "../../../config/strings";

export default function OrderListPage() {
  return <ScreenPlaceholder title={strings.screens.orders} />;
}
