import { PublicPlaceholder } from "../../../components/public/public-placeholder";
import { strings } from "../../../config/strings";

/** /web-call/:callSlug: the browser voice call (a later issue). */
export default function WebCallPage() {
  return <PublicPlaceholder title={strings.screens.webCall} />;
}
