import { useInvalidate, useNotification } from "@refinedev/core";
import { useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { apiPaths } from "../../contract/api";
import { useAuthSession } from "../auth/session";
import { API_URL } from "../config/api-url";
import { strings } from "../config/strings";

const text = strings.privateAgent;

/** What GET /agent/{id}/clone came to (spec §8 "Clone"). */
type CloneOutcome =
  | { kind: "cloned"; id: string }
  | { kind: "alreadyInAccount"; id: string }
  | { kind: "notFound" }
  | { kind: "failed" }
  | { kind: "outerError"; message: string };

/** What the page shows while it is still on screen. */
export type CloneState = { status: "cloning" } | { status: "error"; message: string };

/**
 * GET /agent/{id}/clone?key= (the key is the private link's: the owner's consent). Made here rather than through the data provider because the 409 answer's body
 * names the agent to open (`{detail, code, data: {id}}`: the source when the person owns it, else their
 * earlier clone) and the data provider's errors keep only detail and code.
 */
async function requestClone(agentID: string, key: string | null, getToken: () => Promise<string | null>): Promise<CloneOutcome> {
  let response: Response;
  try {
    const token = await getToken();
    response = await fetch(`${API_URL}${apiPaths.agentClone(agentID, key)}`, {
      headers: { Accept: "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });
  } catch {
    return { kind: "outerError", message: text.serverError };
  }
  const body = (await response.json().catch(() => null)) as { data?: { id?: unknown } } | null;
  const id = typeof body?.data?.id === "string" && body.data.id ? body.data.id : undefined;
  if (response.ok) return id ? { kind: "cloned", id } : { kind: "failed" };
  switch (response.status) {
    case 409:
      return { kind: "alreadyInAccount", id: id ?? agentID };
    case 404:
      return { kind: "notFound" };
    case 401:
      return { kind: "outerError", message: text.authenticationRequired };
    case 500:
      return { kind: "outerError", message: text.serverError };
    default:
      return { kind: "failed" };
  }
}

/**
 * Clones the shared agent into the active organisation once, then toasts and navigates (spec §2, §4, §8):
 * 200 → the new agent; 409 → the agent already in the account; other failures → /agent/{agentID};
 * 404 (no such agent, or its owner does not let this link copy it), 401 and 500 stay on the page with a
 * card. Under StrictMode the effect runs twice: both runs share
 * the one request, and only the run still mounted acts on its answer.
 */
export function useCloneSharedAgent(agentID: string, key: string | null): CloneState {
  const { getToken } = useAuthSession();
  const invalidate = useInvalidate();
  const { open } = useNotification();
  const navigate = useNavigate();
  const request = useRef<{ agentID: string; key: string | null; outcome: Promise<CloneOutcome> } | null>(null);
  const [state, setState] = useState<CloneState>({ status: "cloning" });

  useEffect(() => {
    let active = true;
    if (request.current?.agentID !== agentID || request.current.key !== key) {
      request.current = { agentID, key, outcome: requestClone(agentID, key, getToken) };
    }
    void request.current.outcome.then((outcome) => {
      if (!active) return;
      switch (outcome.kind) {
        case "cloned":
          open?.({ type: "success", message: text.cloned });
          void invalidate({ resource: "agent", invalidates: ["list"] });
          navigate(`/agent/${encodeURIComponent(outcome.id)}`, { replace: true });
          return;
        case "alreadyInAccount":
          open?.({ type: "success", message: text.alreadyInAccount });
          navigate(`/agent/${encodeURIComponent(outcome.id)}`, { replace: true });
          return;
        case "failed":
          open?.({ type: "error", message: text.cloneFailed });
          navigate(`/agent/${encodeURIComponent(agentID)}`, { replace: true });
          return;
        case "notFound":
          setState({ status: "error", message: text.notFound });
          return;
        case "outerError":
          setState({ status: "error", message: outcome.message });
          return;
      }
    });
    return () => {
      active = false;
    };
  }, [agentID, key, getToken, invalidate, navigate, open]);

  return state;
}
