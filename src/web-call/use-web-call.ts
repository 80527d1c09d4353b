import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { WebCallClient, WebCallStartRequest } from "./client";
import { WebCallController, type WebCallState } from "./controller";

export interface UseWebCall {
  state: WebCallState;
  start: (request: WebCallStartRequest) => Promise<void>;
  stop: () => Promise<void>;
  setMuted: (muted: boolean) => void;
}

/**
 * The web call's state for a page. `createClient` is called on the first Start only (that is when
 * the Vapi SDK is loaded); the latest function given is the one used.
 */
export function useWebCall(createClient: () => Promise<WebCallClient>): UseWebCall {
  const factory = useRef(createClient);
  useEffect(() => {
    factory.current = createClient;
  }, [createClient]);

  const [controller] = useState(() => new WebCallController(() => factory.current()));
  useEffect(() => () => controller.dispose(), [controller]);

  const state = useSyncExternalStore(controller.subscribe, controller.getState, controller.getState);
  const start = useCallback((request: WebCallStartRequest) => controller.start(request), [controller]);
  const stop = useCallback(() => controller.stop(), [controller]);
  const setMuted = useCallback((muted: boolean) => controller.setMuted(muted), [controller]);
  return { state, start, stop, setMuted };
}
