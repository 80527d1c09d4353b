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
