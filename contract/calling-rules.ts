/**
 * The rules for an AI voice calling a customer about a purchase (issue 16 §3), in one place. Both sides
 * read them: the server enforces them (order follow-up settings, the dialler's claim, "call now"), the
 * console explains them. No zod here (the console imports this file).
 *
 * Taken on 2026-11-27 from:
 * - the FCC's Declaratory Ruling of 2024-02-08 (FCC 24-17, CG Docket 23-362): AI-generated voices are
 *   "artificial" voices under the TCPA (47 U.S.C. § 227), so a marketing call with one needs the called
 *   party's prior express written consent (47 CFR § 64.1200(a)(2), (f)(9));
 * - 47 CFR § 64.1200(c)(1): no telephone solicitation before 8:00 or after 21:00 at the called party's
 *   location;
 * - state "mini-TCPA" laws that are stricter: several states stop at 20:00 (e.g. Florida's FTSA,
 *   Oklahoma's OTSA, Maryland's Stop the Calls Act), some limit calls per number per day (Florida, Oklahoma and
 *   Maryland: 3 calls on the same subject in 24 hours) and some bar Sundays and holidays;
 * - 47 CFR § 64.1200(b): every artificial-voice call states the business's identity at its start, and
 *   the called party can opt out, which is honoured (our do-not-call list).
 *
 * A store's email or SMS marketing consent (Shopify's accepts_marketing / email_marketing_consent /
 * sms_marketing_consent) is never consent to be called.
 */

/** When these rules were taken from the sources above. */
export const CALLING_RULES_DATE = "2026-11-27";

/** The outer limit of any follow-up window, in the customer's local time (47 CFR § 64.1200(c)(1)). */
export const CALLING_HOURS = { start: "08:00", end: "21:00" } as const;

/** The follow-up's default window: 9:00–20:00 local time (several states stop at 20:00), Monday to Saturday (some states bar Sundays). */
export const DEFAULT_FOLLOW_UP_WINDOWS = [{ days: ["mon", "tue", "wed", "thu", "fri", "sat"], start: "09:00", end: "20:00" }] as const;

/** At most this many calls to one number in any 24 hours (across every order and attempt). */
export const MAX_CALLS_PER_NUMBER_PER_24H = 3;
export const CALLS_PER_NUMBER_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The sentence a 400 names when a follow-up window leaves the calling hours. */
export const CALLING_HOURS_RULE =
  `calls about a purchase may only be made between ${CALLING_HOURS.start} and ${CALLING_HOURS.end} in the customer's local time (47 CFR § 64.1200(c)(1); rules as of ${CALLING_RULES_DATE})`;

/** Where an order's call consent came from, when the store or a file did not say. */
export const CONSENT_SOURCE_CONFIRMED_IN_CONSOLE = "confirmed in the console";

/** Values of a `call_consent` field (a store's checkout attribute, a CSV cell) that mean yes; anything else is no. */
export const CONSENT_YES_VALUES = ["true", "yes", "y", "1", "on"] as const;
export const isConsentYes = (value: unknown): boolean =>
  value === true || (typeof value === "string" && (CONSENT_YES_VALUES as readonly string[]).includes(value.trim().toLowerCase()));

/** What every follow-up call must do (the prompt and the console's settings say so). */
export const CALL_DUTIES = [
  "say at the start which business is calling and why",
  "offer to stop calling, and honour it at once (the number goes on the do-not-call list)",
] as const;

const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether a window (HH:MM, end may be 24:00) lies inside CALLING_HOURS. */
export const windowWithinCallingHours = (window: { start: string; end: string }): boolean =>
  minutes(window.start) >= minutes(CALLING_HOURS.start) && minutes(window.end) <= minutes(CALLING_HOURS.end);
