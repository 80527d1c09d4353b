import { useEffect, useId, useRef, type ReactNode } from "react";
import { createPortal } from "react-dom";
import { strings } from "../../config/strings";

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A small accessible modal for the public pages: labelled by its title, Escape and the backdrop close it
 * (unless `locked`, e.g. while a call is being placed), focus stays inside and returns where it was.
 */
export function Modal({
  title,
  open,
  onClose,
  locked = false,
  children,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  locked?: boolean;
  children: ReactNode;
}) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  const isLocked = useRef(locked);
  useEffect(() => {
    close.current = onClose;
    isLocked.current = locked;
  });

  useEffect(() => {
    if (!open) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const first = panel.current?.querySelector<HTMLElement>("input, textarea, select") ?? panel.current;
    first?.focus();
    return () => opener?.focus();
  }, [open]);

  if (!open) return null;

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === "Escape" && !isLocked.current) {
      event.stopPropagation();
      close.current();
      return;
    }
    if (event.key !== "Tab" || !panel.current) return;
    const items = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div
      className="pub-modal__backdrop"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget && !isLocked.current) close.current();
      }}
    >
      <div
        ref={panel}
        className="pub-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <div className="pub-modal__header">
          <h2 id={titleId} className="pub-modal__title">
            {title}
          </h2>
          <button
            type="button"
            className="pub-modal__close"
            aria-label={strings.publicAgent.close}
            disabled={locked}
            onClick={() => close.current()}
          >
            ×
          </button>
        </div>
        <div className="pub-modal__body">{children}</div>
      </div>
    </div>,
    document.body,
  );
}
