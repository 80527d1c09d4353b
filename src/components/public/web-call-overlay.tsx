import { useEffect, useId, useRef } from "react";
import { strings } from "../../config/strings";
import { litSegments, VOLUME_SEGMENTS, type WebCallState } from "../../web-call/controller";
import { Icon } from "./icons";
import { PublicButton } from "./public-button";

const t = strings.webCall;

/** Spec §2, §9: ten segments, lit = round(volume × 10). */
export function VolumeBar({ volume }: { volume: number }) {
  const lit = litSegments(volume);
  return (
    <div
      className="pub-volume"
      role="meter"
      aria-label={t.volume}
      aria-valuemin={0}
      aria-valuemax={VOLUME_SEGMENTS}
      aria-valuenow={lit}
    >
      {Array.from({ length: VOLUME_SEGMENTS }, (_, index) => (
        <span
          key={index}
          className={`pub-volume__segment${index < lit ? " pub-volume__segment--lit" : ""}`}
          data-lit={index < lit}
        />
      ))}
    </div>
  );
}

/** The full-screen overlay of an active web call: speaking or listening, the volume bar, End Call. */
export function WebCallOverlay({
  title,
  state,
  onEnd,
  onMute,
}: {
  title: string;
  state: WebCallState;
  onEnd: () => void;
  onMute: (muted: boolean) => void;
}) {
  const titleId = useId();
  const endButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    endButton.current?.focus();
  }, []);

  return (
    <div className="pub-overlay" role="dialog" aria-modal="true" aria-labelledby={titleId}>
      <div className="pub-overlay__panel">
        {state.sandbox && (
          <span className="pub-badge" title={t.sandboxHint}>
            {t.sandbox}
          </span>
        )}
        <h2 id={titleId} className="pub-overlay__title">
          {title || t.overlay}
        </h2>
        <div className={`pub-orb${state.speaking ? " pub-orb--speaking" : ""}`} aria-hidden="true">
          <Icon name={state.speaking ? "chat" : "microphone"} size={36} />
        </div>
        <p className="pub-overlay__status" role="status" aria-live="polite">
          {state.speaking ? t.speaking : t.listening}
        </p>
        <VolumeBar volume={state.volume} />
        {state.caption && <p className="pub-overlay__caption">{state.caption.text}</p>}
        {state.sandbox && <p className="pub-overlay__hint">{t.sandboxHint}</p>}
        <div className="pub-overlay__actions">
          <PublicButton variant="ghost" aria-pressed={state.muted} onClick={() => onMute(!state.muted)}>
            <Icon name={state.muted ? "mic-off" : "microphone"} size={18} />
            {state.muted ? t.unmute : t.mute}
          </PublicButton>
          <PublicButton ref={endButton} variant="danger" onClick={onEnd}>
            <Icon name="phone-off" size={18} />
            {t.endCall}
          </PublicButton>
        </div>
      </div>
    </div>
  );
}
