/**
 * The public agent page's rules (spec §3, §5, §8), as plain functions the page and the tests share.
 */
import { strings } from "../../config/strings";
import { PublicHttpError, type PublicAgentProfile, type PublicCallPayload } from "./public-api";

const t = strings.publicAgent;

/** Spec §3 "Public agent (built locally)": what the page shows when the profile cannot be loaded. */
export function buildLocalAgent(agentId: string): PublicAgentProfile {
  return {
    id: agentId,
    name: t.defaultName(agentId),
    description: t.defaultDescription,
    firstMessage: strings.webCall.defaultGreeting,
    endCallMessage: strings.webCall.sandboxEndMessage,
  };
}

/** Where the last profile the server gave for an agent is kept in this tab (survives a reload). */
export interface ProfileMemory {
  get(agentId: string): PublicAgentProfile | null;
  set(agentId: string, profile: PublicAgentProfile): void;
  forget(agentId: string): void;
}

const MEMORY_PREFIX = "public-agent-profile:";

/** ProfileMemory in sessionStorage; a browser that refuses storage simply remembers nothing. */
export const sessionProfileMemory: ProfileMemory = {
  get(agentId) {
    try {
      const stored = JSON.parse(sessionStorage.getItem(MEMORY_PREFIX + agentId) ?? "null") as Partial<PublicAgentProfile> | null;
      if (!stored || typeof stored.name !== "string" || typeof stored.description !== "string") return null;
      return withAgentDefaults(agentId, {
        id: agentId,
        name: stored.name,
        description: stored.description,
        firstMessage: typeof stored.firstMessage === "string" ? stored.firstMessage : "",
        endCallMessage: typeof stored.endCallMessage === "string" ? stored.endCallMessage : "",
      });
    } catch {
      return null;
    }
  },
  set(agentId, profile) {
    try {
      sessionStorage.setItem(MEMORY_PREFIX + agentId, JSON.stringify(profile));
    } catch {
      // Storage full or refused: nothing to remember.
    }
  },
  forget(agentId) {
    try {
      sessionStorage.removeItem(MEMORY_PREFIX + agentId);
    } catch {
      // As above.
    }
  },
};

/** How long to wait before asking again after a 429: the server's Retry-After (1–60 s, 2 s without one), plus a little jitter. */
export function retryDelayMs(retryAfterSeconds: number | null): number {
  const seconds = Math.min(60, Math.max(1, retryAfterSeconds ?? 2));
  return seconds * 1000 + Math.floor(Math.random() * 250);
}

/**
 * The profile the page shows. The stand-in of spec §3 (buildLocalAgent) is for an id that names no
 * public agent (404, or 400: not an agent id). A busy server (429) never turns a real agent into the
 * stand-in: the last profile this tab got for it is shown, or the page keeps loading and asks again
 * when Retry-After says. Any other failure (network, 5xx) shows that last profile too, else the stand-in.
 * Answers null when the page went away meanwhile (`isCurrent`).
 */
export async function loadPublicAgentProfile(
  agentId: string,
  options: {
    fetchProfile: (agentId: string) => Promise<PublicAgentProfile>;
    memory?: ProfileMemory;
    wait?: (ms: number) => Promise<void>;
    isCurrent?: () => boolean;
  },
): Promise<PublicAgentProfile | null> {
  const { fetchProfile, memory = sessionProfileMemory, isCurrent = () => true } = options;
  const wait = options.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (;;) {
    try {
      const profile = withAgentDefaults(agentId, await fetchProfile(agentId));
      memory.set(agentId, profile);
      return profile;
    } catch (error) {
      const status = error instanceof PublicHttpError ? error.status : null;
      if (status === 404 || status === 400) {
        memory.forget(agentId);
        return buildLocalAgent(agentId);
      }
      const remembered = memory.get(agentId);
      if (remembered) return remembered;
      if (status !== 429) return buildLocalAgent(agentId);
      await wait(retryDelayMs((error as PublicHttpError).retryAfterSeconds));
      if (!isCurrent()) return null;
    }
  }
}

/** The loaded profile, with the local defaults for whatever it left empty. */
export function withAgentDefaults(agentId: string, profile: PublicAgentProfile): PublicAgentProfile {
  const local = buildLocalAgent(agentId);
  return {
    id: profile.id || local.id,
    name: profile.name.trim() || local.name,
    description: profile.description.trim() || local.description,
    firstMessage: profile.firstMessage.trim() || local.firstMessage,
    endCallMessage: profile.endCallMessage.trim() || local.endCallMessage,
  };
}

/** Spec §3: the phone-number config built from `pid` has provider 'vapi'. */
export interface PhoneNumberConfig {
  id: string;
  provider: "vapi";
}

export function phoneNumberConfigFromPid(pid: string | null): PhoneNumberConfig | null {
  const id = pid?.trim();
  return id ? { id, provider: "vapi" } : null;
}

/** Spec §5: a phone number is prefixed with '+' if it lacks one. */
export function withPlus(phone: string): string {
  const trimmed = phone.trim();
  return trimmed.startsWith("+") ? trimmed : `+${trimmed}`;
}

/** Spec §3 "Public call payload", exactly: the recipient name falls back to 'Sir'. */
export function buildPublicCallPayload(input: {
  agentId: string;
  recipientName: string;
  phone: string;
  phoneNumberId: string;
}): PublicCallPayload {
  return {
    assistantId: input.agentId,
    assistantOverrides: { variableValues: { name: input.recipientName.trim() || t.nameFallback } },
    customer: { number: withPlus(input.phone) },
    phoneNumberId: input.phoneNumberId,
  };
}

/** Spec §5, in the order the page checks them: phone, name, phone-number configuration. */
export function publicCallValidationError(input: {
  recipientName: string;
  phoneEmpty: boolean;
  phoneNumberConfig: PhoneNumberConfig | null;
}): string | null {
  if (input.phoneEmpty) return t.phoneRequired;
  if (!input.recipientName.trim()) return t.nameRequired;
  if (!input.phoneNumberConfig) return t.phoneConfigMissing;
  return null;
}

/** Spec §8 "Public call": the toast for a failed POST /call/public (any other failure: 'Call Not Connected'). */
export function publicCallFailureMessage(error: unknown): string {
  if (!(error instanceof PublicHttpError)) return t.errors.notConnected;
  switch (error.status) {
    case 403:
      // A spend cap or the plan's limit (issue 15): the server's sentence says which and when it resets; any
      // other 403 (the wallet) keeps the spec's sentence.
      if ((error.code === "spend_cap_reached" || error.code === "plan_limit_reached") && error.detail) return error.detail;
      return t.errors.wallet;
    case 400:
      return /tool/i.test(error.detail ?? "") ? t.errors.tools : t.errors.badRequest;
    case 404:
      return t.errors.notFound;
    case 500:
      return t.errors.server;
    default:
      return t.errors.notConnected;
  }
}
