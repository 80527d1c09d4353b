import { PublicPlaceholder } from "../../../components/public/public-placeholder";
import { strings } from "../../../config/strings";

/** /public/agent/:agentID: a public agent that phones the visitor (a later issue). */
export default function PublicAgentPage() {
  return <PublicPlaceholder title={strings.screens.publicAgent} />;
}
