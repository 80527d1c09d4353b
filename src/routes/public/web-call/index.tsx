import { useCallback, useEffect, useState } from "react";
import { useParams } from "react-router";
import { FullAreaLoader } from "../../../components/full-area-loader";
import { Icon } from "../../../components/public/icons";
import { PublicButton } from "../../../components/public/public-button";
import {
  endSandboxWebCall,
  fetchWebCallDetails,
  PublicHttpError,
  startSandboxWebCall,
  type WebCallDetails,
} from "../../../components/public/public-api";
import { WebCallOverlay } from "../../../components/public/web-call-overlay";
import "../../../components/public/public.css";
import { loadPublicConfig } from "../../../config/public-config";
import { strings } from "../../../config/strings";
import { createWebCallClient } from "../../../web-call/client";
import { useWebCall } from "../../../web-call/use-web-call";

const t = strings.webCall;
const HELP_ID = "web-call-help";

type Loaded =
  | { status: "loading" }
  | { status: "ready"; details: WebCallDetails }
  | { status: "not-found" }
  | { status: "failed" };

/**
 * /web-call/:callSlug (spec §2, §4 "Web call"): the call's title, a greeting with the recipient's name,
 * the subtitle and the instructions, a Start button and a 'Get help' link. Start → loading → active on
 * the call's 'listening' message (full-screen overlay) → ended. Voice goes through the WebCallClient of
 * the server's voice mode; @vapi-ai/web is loaded on Start only.
 */
export default function WebCallPage() {
  const { callSlug = "" } = useParams();
  return <WebCallScreen key={callSlug} slug={callSlug} />;
}

function WebCallScreen({ slug }: { slug: string }) {
  const [loaded, setLoaded] = useState<Loaded>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    fetchWebCallDetails(slug).then(
      (details) => current && setLoaded({ status: "ready", details }),
      (error: unknown) =>
        current &&
        setLoaded({ status: error instanceof PublicHttpError && error.status === 404 ? "not-found" : "failed" }),
    );
    return () => {
      current = false;
    };
  }, [slug, attempt]);

  const title = loaded.status === "ready" ? loaded.details.callTitle || t.overlay : loaded.status === "not-found" ? t.notFound : strings.screens.webCall;
  useEffect(() => {
    document.title = `${title} · ${strings.appName}`;
  }, [title]);

  if (loaded.status === "loading") {
    return (
      <main className="pub-page pub-page--center">
        <FullAreaLoader label={t.loading} />
      </main>
    );
  }
  if (loaded.status === "not-found" || loaded.status === "failed") {
    const notFound = loaded.status === "not-found";
    return (
      <main className="pub-page pub-page--center">
        <section className="pub-card pub-message">
          <Icon name="info" size={32} />
          <h1>{notFound ? t.notFound : t.loadFailed}</h1>
          <p>{notFound ? t.notFoundDetail : t.loadFailedDetail}</p>
          {!notFound && (
            <PublicButton
              onClick={() => {
                setLoaded({ status: "loading" });
                setAttempt((n) => n + 1);
              }}
            >
              {t.retry}
            </PublicButton>
          )}
        </section>
      </main>
    );
  }
  return <WebCallDetailsView slug={slug} details={loaded.details} />;
}

function WebCallDetailsView({ slug, details }: { slug: string; details: WebCallDetails }) {
  const createClient = useCallback(async () => {
    const config = await loadPublicConfig();
    return createWebCallClient({
      voiceMode: config.voiceMode,
      vapiPublicKey: config.vapiPublicKey,
      vapiApiUrl: config.vapiApiUrl,
      // The agent's own welcome message, which the server's record of the call also carries.
      greeting: details.firstMessage,
      // The server records the sandbox call (type web, transcript, summary, cost) and ends it with the page.
      sandboxServer: {
        start: async () => {
          try {
            return await startSandboxWebCall(slug);
          } catch (error) {
            throw new Error(error instanceof PublicHttpError && error.detail ? error.detail : t.startFailed);
          }
        },
        end: (id, reason) => endSandboxWebCall(slug, id, reason),
      },
    });
  }, [slug, details.firstMessage]);
  const { state, start, stop, setMuted } = useWebCall(createClient);
  const loading = state.status === "loading";

  const onStart = () =>
    void start({
      assistantId: details.assistantId,
      assistantOverrides: { variableValues: { name: details.name } },
    });

  return (
    <main className="pub-page">
      <section className="pub-card pub-webcall" aria-labelledby="web-call-title">
        <h1 id="web-call-title" className="pub-webcall__title">
          {details.callTitle}
        </h1>
        <p className="pub-webcall__greeting">{t.greeting(details.name)}</p>
        {details.subTitle && <p className="pub-webcall__subtitle">{details.subTitle}</p>}
        {details.instructions.length > 0 && (
          <>
            <h2 id="web-call-instructions" className="pub-webcall__section">
              {t.instructions}
            </h2>
            <ul className="pub-instructions" aria-labelledby="web-call-instructions">
              {details.instructions.map((item) => (
                <li key={item.id} className="pub-instruction">
                  <span className="pub-instruction__icon" data-icon={item.icon}>
                    <Icon name={item.icon} />
                  </span>
                  <div>
                    <h3 className="pub-instruction__title">{item.title}</h3>
                    <p className="pub-instruction__description">{item.description}</p>
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
        {state.error && (
          <div className="pub-alert" role="alert">
            <p className="pub-alert__message">{state.error.message}</p>
            {state.error.code === "public-key" && <p className="pub-alert__hint">{t.publicKeyHint}</p>}
          </div>
        )}
        {state.status === "ended" && (
          <p className="pub-webcall__ended" role="status">
            {t.ended}
          </p>
        )}
        <div className="pub-webcall__actions">
          <PublicButton className="pub-webcall__start" busy={loading} onClick={onStart}>
            {!loading && <Icon name="phone" size={18} />}
            {loading ? t.starting : t.start}
          </PublicButton>
          <a className="pub-link" href={`#${HELP_ID}`}>
            <Icon name="help" size={16} />
            {t.getHelp}
          </a>
        </div>
      </section>
      <section id={HELP_ID} className="pub-card pub-help" aria-labelledby={`${HELP_ID}-title`} tabIndex={-1}>
        <h2 id={`${HELP_ID}-title`}>{t.helpTitle}</h2>
        <ul>
          {t.helpTips.map((tip) => (
            <li key={tip}>{tip}</li>
          ))}
        </ul>
      </section>
      {state.status === "active" && (
        <WebCallOverlay title={details.callTitle} state={state} onEnd={() => void stop()} onMute={setMuted} />
      )}
    </main>
  );
}
