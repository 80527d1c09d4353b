/**
 * The public pages' requests: no token, plain fetch, answers checked by hand (zod and the console's
 * data provider stay out of the public chunks).
 */
import { API_URL } from "../../config/api-url";
import { takeEarly } from "../../config/early-requests";
import { SANDBOX_WEB_CALL_MAX_SECONDS, type SandboxWebCallEndReason } from "../../../contract/web-call-sandbox";

const segment = (value: string) => encodeURIComponent(value);

/** Paths below the API base (spec §7). */
export const publicApiPaths = {
  agentProfile: (agentId: string) => `/agent/${segment(agentId)}/public`,
  publicCall: "/call/public",
  webCall: (slug: string) => `/webcall/public/${segment(slug)}`,
  sandboxCallStart: (slug: string) => `/webcall/public/${segment(slug)}/call`,
  sandboxCallEnd: (slug: string, callId: string) => `/webcall/public/${segment(slug)}/call/${segment(callId)}/end`,
} as const;

/** A non-2xx answer: its status, the server's `detail` sentence when it sent one, and Retry-After (seconds) on a 429. */
export class PublicHttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | null,
    readonly code: string | null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(detail ?? `The request failed (status ${status}).`);
    this.name = "PublicHttpError";
  }
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => !!value && typeof value === "object" && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === "string" ? value : "");

async function send(path: string, init: RequestInit = {}): Promise<unknown> {
  // A GET the entry script already started (config/early-requests.ts) is used instead of a second one.
  const started = init.method === undefined || init.method === "GET" ? takeEarly(path) : undefined;
  const response = await (started ?? fetch(`${API_URL}${path}`, {
    ...init,
    headers: { Accept: "application/json", ...(init.body ? { "Content-Type": "application/json" } : {}), ...init.headers },
  }));
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const detail = isRecord(body) && typeof body.detail === "string" ? body.detail : null;
    const code = isRecord(body) && typeof body.code === "string" ? body.code : null;
    const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
    throw new PublicHttpError(response.status, detail, code, Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null);
  }
  return isRecord(body) ? body.data : undefined;
}

export interface PublicAgentProfile {
  id: string;
  name: string;
  description: string;
  firstMessage: string;
  endCallMessage: string;
}

/** GET /agent/{id}/public */
export async function fetchPublicAgentProfile(agentId: string): Promise<PublicAgentProfile> {
  const data = await send(publicApiPaths.agentProfile(agentId));
  if (!isRecord(data)) throw new Error("The public agent profile had no data");
  return {
    id: text(data.id) || agentId,
    name: text(data.name),
    description: text(data.description),
    firstMessage: text(data.firstMessage),
    endCallMessage: text(data.endCallMessage),
  };
}

/** Spec §3 "Public call payload". */
export interface PublicCallPayload {
  assistantId: string;
  assistantOverrides: { variableValues: { name: string } };
  customer: { number: string };
  phoneNumberId: string;
}

/** POST /call/public: 200 or 201 {data: {id, status}}. */
export async function postPublicCall(payload: PublicCallPayload): Promise<{ id: string | null; status: string | null }> {
  const data = await send(publicApiPaths.publicCall, { method: "POST", body: JSON.stringify(payload) });
  return {
    id: isRecord(data) && typeof data.id === "string" ? data.id : null,
    status: isRecord(data) && typeof data.status === "string" ? data.status : null,
  };
}

export interface WebCallInstruction {
  id: string;
  icon: string;
  title: string;
  description: string;
}

/** Spec §3 "Web call details", and the agent's first message as the call says it. */
export interface WebCallDetails {
  callTitle: string;
  name: string;
  subTitle: string;
  assistantId: string;
  instructions: WebCallInstruction[];
  firstMessage: string;
}

/** GET /webcall/public/{slug} */
export async function fetchWebCallDetails(slug: string): Promise<WebCallDetails> {
  const data = await send(publicApiPaths.webCall(slug));
  if (!isRecord(data)) throw new Error("The web call had no data");
  const instructions = Array.isArray(data.instructions) ? data.instructions.filter(isRecord) : [];
  return {
    callTitle: text(data.callTitle),
    name: text(data.name),
    subTitle: text(data.subTitle),
    assistantId: text(data.assistantId),
    firstMessage: text(data.firstMessage),
    instructions: instructions.map((item, index) => ({
      id: text(item.id) || String(index),
      icon: text(item.icon),
      title: text(item.title),
      description: text(item.description),
    })),
  };
}

/** POST /webcall/public/{slug}/call (sandbox mode): the server's record of the page's simulated call. */
export async function startSandboxWebCall(slug: string): Promise<{ id: string; maxDurationSeconds: number }> {
  const data = await send(publicApiPaths.sandboxCallStart(slug), { method: "POST", body: "{}" });
  if (!isRecord(data) || typeof data.id !== "string") throw new Error("The sandbox call had no id");
  return { id: data.id, maxDurationSeconds: typeof data.maxDurationSeconds === "number" ? data.maxDurationSeconds : SANDBOX_WEB_CALL_MAX_SECONDS };
}

/** POST /webcall/public/{slug}/call/{id}/end */
export async function endSandboxWebCall(slug: string, callId: string, reason: SandboxWebCallEndReason): Promise<void> {
  await send(publicApiPaths.sandboxCallEnd(slug, callId), { method: "POST", body: JSON.stringify({ reason }) });
}
