import { useEffect, useState } from "react";
import { useParams, useSearchParams } from "react-router";
import { FullAreaLoader } from "../../../components/full-area-loader";
import { CallDetailsModal } from "../../../components/public/call-details-modal";
import { Icon } from "../../../components/public/icons";
import { PublicButton } from "../../../components/public/public-button";
import { loadPublicAgentProfile, phoneNumberConfigFromPid } from "../../../components/public/public-agent-logic";
import { fetchPublicAgentProfile, type PublicAgentProfile } from "../../../components/public/public-api";
import { ToastProvider } from "../../../components/public/toast";
import "../../../components/public/public.css";
import { strings } from "../../../config/strings";

const t = strings.publicAgent;

/**
 * /public/agent/:agentID (spec §2, §4 "Public agent"): loading screen → landing (name, description,
 * Start Call) → 'Confirm Call Details' modal → calling → success closes the modal. `?pid=` names the
 * phone number the agent calls from. No sign-in, no shell, no antd.
 */
export default function PublicAgentPage() {
  const { agentID = "" } = useParams();
  const [searchParams] = useSearchParams();
  return (
    <ToastProvider>
      <PublicAgentScreen key={agentID} agentId={agentID} pid={searchParams.get("pid")} />
    </ToastProvider>
  );
}

function PublicAgentScreen({ agentId, pid }: { agentId: string; pid: string | null }) {
  const [agent, setAgent] = useState<PublicAgentProfile | null>(null);
  const [modalOpen, setModalOpen] = useState(false);

  useEffect(() => {
    let current = true;
    // Spec §3: the public agent is built locally when there is no such public agent; a busy server
    // (429) is asked again instead, so a real agent keeps its own name (public-agent-logic.ts).
    void loadPublicAgentProfile(agentId, { fetchProfile: fetchPublicAgentProfile, isCurrent: () => current }).then((loaded) => {
      if (current && loaded) setAgent(loaded);
    });
    return () => {
      current = false;
    };
  }, [agentId]);

  useEffect(() => {
    document.title = `${agent?.name ?? t.loading} · ${strings.appName}`;
  }, [agent]);

  if (!agent) {
    return (
      <main className="pub-page pub-page--center">
        <FullAreaLoader label={t.loading} />
      </main>
    );
  }

  return (
    <main className="pub-page pub-page--center">
      <section className="pub-card pub-agent" aria-labelledby="public-agent-name">
        <div className="pub-agent__avatar" aria-hidden="true">
          <Icon name="phone" size={28} />
        </div>
        <h1 id="public-agent-name" className="pub-agent__name">
          {agent.name}
        </h1>
        <p className="pub-agent__description">{agent.description}</p>
        <PublicButton className="pub-agent__start" onClick={() => setModalOpen(true)}>
          <Icon name="phone" size={18} />
          {t.startCall}
        </PublicButton>
      </section>
      {modalOpen && (
        <CallDetailsModal
          agentId={agentId}
          phoneNumberConfig={phoneNumberConfigFromPid(pid)}
          onClose={() => setModalOpen(false)}
        />
      )}
    </main>
  );
}
