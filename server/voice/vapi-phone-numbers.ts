/**
 * Vapi phone numbers: POST /phone-number (create or import), PATCH /phone-number/{id}, DELETE
 * /phone-number/{id} (404 counts as deleted).
 *
 * - provider `vapi`: a number Vapi assigns (CreateVapiPhoneNumberDTO with `numberDesiredAreaCode`); the
 *   digits come back in Vapi's answer (fetched once more with GET when the answer has none yet). A SIP URI
 *   number is not offered: our numbers are E.164.
 * - provider `twilio`: an import (CreateTwilioPhoneNumberDTO: number, twilioAccountSid, twilioAuthToken).
 * - `vonage`, `telnyx`, `byo`: their DTOs need a Vapi credential id (`credentialId`, made in Vapi's
 *   dashboard), which this product does not manage yet; the service answers 400 before reaching here.
 *
 * `assistantId` is the answering agent's assistant. To take the assistant off a number the PATCH sends
 * `assistantId: null`: Vapi's API clears it that way (its OpenAPI document types the field as a plain
 * string, without `nullable`; Vapi's own SDK issue VapiAI/server-sdk-typescript#8 confirms null is how).
 */
import type { VapiHttp } from "./vapi";
import { VoiceProviderError, type PhoneNumberForSync, type VoiceProvider } from "./types";

/**
 * What savePhoneNumber reads beyond PhoneNumberForSync: the area code of a number Vapi assigns.
 * (A structural extension until types.ts carries it: callers pass this where PhoneNumberForSync is asked.)
 */
export interface PhoneNumberSyncInput extends PhoneNumberForSync {
  /** provider vapi, on create: the US area code Vapi picks the number in. */
  areaCode?: string | null;
}

/** What savePhoneNumber answers beyond the interface: the digits Vapi assigned (provider vapi). */
export interface PhoneNumberSaved {
  providerNumberId: string | null;
  number?: string;
}

/** The number the provider assigned, when its answer carries one. */
export function assignedNumber(result: { providerNumberId: string | null }): string | null {
  const number = (result as PhoneNumberSaved).number;
  return typeof number === "string" && number ? number : null;
}

const VAPI_PROVIDER: Record<PhoneNumberForSync["provider"], string> = {
  vapi: "vapi",
  twilio: "twilio",
  vonage: "vonage",
  telnyx: "telnyx",
  byo: "byo-phone-number",
};

/** Vapi's `name` holds at most 40 characters. */
const vapiName = (name: string) => name.slice(0, 40);

/** CreateVapiPhoneNumberDTO / CreateTwilioPhoneNumberDTO for a new number. */
export function toVapiPhoneNumberCreate(input: PhoneNumberSyncInput): Record<string, unknown> {
  const assistant = input.assistantId ? { assistantId: input.assistantId } : {};
  if (input.provider === "vapi") {
    if (!input.areaCode) throw new VoiceProviderError("A number from Vapi needs an area code (area_code, e.g. 415): Vapi picks the digits.");
    return { provider: "vapi", name: vapiName(input.name), numberDesiredAreaCode: input.areaCode, ...assistant };
  }
  if (input.provider === "twilio") {
    if (!input.credentials) throw new VoiceProviderError("Importing a Twilio number needs its Twilio account SID and auth token.");
    return {
      provider: "twilio",
      number: input.number,
      twilioAccountSid: input.credentials.twilioAccountSid,
      twilioAuthToken: input.credentials.twilioAuthToken,
      name: vapiName(input.name),
      ...assistant,
    };
  }
  throw new VoiceProviderError(unsupported(input.provider));
}

/** Update*PhoneNumberDTO: the name, the answering assistant (null clears it) and, for Twilio, the credentials. */
export function toVapiPhoneNumberUpdate(input: PhoneNumberForSync): Record<string, unknown> {
  const body: Record<string, unknown> = { provider: VAPI_PROVIDER[input.provider], name: vapiName(input.name), assistantId: input.assistantId };
  if (input.provider === "twilio" && input.credentials) {
    body.twilioAccountSid = input.credentials.twilioAccountSid;
    body.twilioAuthToken = input.credentials.twilioAuthToken;
  }
  return body;
}

export const unsupported = (provider: string) =>
  `Importing ${provider} numbers into Vapi needs a Vapi credential id, which this product does not manage yet: ` +
  "import the number in Vapi's dashboard, or use a twilio or vapi number.";

interface VapiNumberBody {
  id?: unknown;
  number?: unknown;
}

export function vapiPhoneNumberMethods(http: VapiHttp): Pick<VoiceProvider, "savePhoneNumber" | "deletePhoneNumber"> {
  /** The digits of a number Vapi assigned: from its answer, else one GET later; null if it has none yet. */
  async function digitsOf(body: VapiNumberBody | null, id: string): Promise<string | null> {
    if (typeof body?.number === "string" && body.number) return body.number;
    const again = await http.request<VapiNumberBody>("GET", `/phone-number/${encodeURIComponent(id)}`);
    return typeof again?.number === "string" && again.number ? again.number : null;
  }

  async function create(input: PhoneNumberSyncInput): Promise<PhoneNumberSaved> {
    const payload = toVapiPhoneNumberCreate(input);
    let id: string;
    let body: VapiNumberBody | null;
    try {
      body = await http.request<VapiNumberBody>("POST", "/phone-number", { json: payload });
      id = http.idOf(body, "phone number");
    } catch (error) {
      throw http.fail(error, input.provider === "vapi" ? "create the phone number" : "import the phone number");
    }
    if (input.provider !== "vapi") return { providerNumberId: id };
    let number: string | null = null;
    try {
      number = await digitsOf(body, id);
    } catch {
      // Treated as "no number yet" below.
    }
    if (!number) {
      // A number without digits is of no use to us: release it rather than leave it behind.
      await http.request("DELETE", `/phone-number/${encodeURIComponent(id)}`).catch(() => undefined);
      throw new VoiceProviderError("Vapi did not assign digits to the new number yet. Try again in a minute.");
    }
    return { providerNumberId: id, number };
  }

  return {
    async savePhoneNumber(input: PhoneNumberSyncInput, providerNumberId: string | null): Promise<PhoneNumberSaved> {
      if (!providerNumberId) return create(input);
      try {
        const body = await http.request<VapiNumberBody>("PATCH", `/phone-number/${encodeURIComponent(providerNumberId)}`, {
          json: toVapiPhoneNumberUpdate(input),
        });
        const id = body && typeof body.id === "string" && body.id ? body.id : providerNumberId;
        return { providerNumberId: id };
      } catch (error) {
        if (http.isNotFound(error)) {
          // Deleted at Vapi (e.g. in its dashboard). An imported number can be imported again; one Vapi assigned is gone.
          if (input.provider === "twilio" && input.credentials) return create(input);
          throw new VoiceProviderError("This number no longer exists at Vapi (deleted in its dashboard?): delete it here and add a new one.", 404);
        }
        throw http.fail(error, "update the phone number");
      }
    },

    async deletePhoneNumber(providerNumberId: string) {
      try {
        await http.request("DELETE", `/phone-number/${encodeURIComponent(providerNumberId)}`);
      } catch (error) {
        if (http.isNotFound(error)) return;
        throw http.fail(error, "release the phone number");
      }
    },
  };
}
