/**
 * The public pages' toasts: top-right, each closes after 5 s (spec §8 "Public call (toast 5 s)"),
 * at most 20 on screen (spec §9), a close button on each. Plain React and CSS, no antd.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { strings } from "../../config/strings";

export const TOAST_DURATION_MS = 5000;
export const MAX_TOASTS = 20;

export type ToastKind = "success" | "error" | "info";

interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

interface ToastApi {
  show: (kind: ToastKind, text: string) => void;
}

const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error("useToast needs a <ToastProvider> above it");
  return api;
}

export function ToastProvider({ children, durationMs = TOAST_DURATION_MS }: { children: ReactNode; durationMs?: number }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());

  const dismiss = useCallback((id: number) => {
    const timer = timers.current.get(id);
    if (timer) clearTimeout(timer);
    timers.current.delete(id);
    setToasts((current) => current.filter((toast) => toast.id !== id));
  }, []);

  const show = useCallback(
    (kind: ToastKind, text: string) => {
      const id = nextId.current++;
      setToasts((current) => [...current, { id, kind, text }].slice(-MAX_TOASTS));
      timers.current.set(
        id,
        setTimeout(() => dismiss(id), durationMs),
      );
    },
    [dismiss, durationMs],
  );

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    };
  }, []);

  const api = useMemo(() => ({ show }), [show]);

  return (
    <ToastContext.Provider value={api}>
      {children}
      {/* A named region (an aria-label on a div with no role is ignored by screen readers and refused by axe). */}
      <div className="pub-toasts" role="region" aria-label={strings.publicAgent.notifications}>
        {toasts.map((toast) => (
          <div
            key={toast.id}
            className={`pub-toast pub-toast--${toast.kind}`}
            role={toast.kind === "error" ? "alert" : "status"}
          >
            <span className="pub-toast__icon" aria-hidden="true">
              {toast.kind === "success" ? "✓" : toast.kind === "error" ? "!" : "i"}
            </span>
            <span className="pub-toast__text">{toast.text}</span>
            <button
              type="button"
              className="pub-toast__close"
              aria-label={strings.publicAgent.dismiss}
              onClick={() => dismiss(toast.id)}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
