/**
 * A phone number as people type it in a contact or do-not-call list, in E.164: spaces, dashes, dots
 * and brackets are dropped (contract/phone-number.ts normalisePhoneNumber), and a leading ' too (the
 * formula guard spreadsheets, and our own exports, put before a +).
 */
import { E164_PATTERN } from "../../contract/agent";
import { normalisePhoneNumber } from "../../contract/phone-number";

/** The number in E.164, or null when it is not one. */
export function contactNumber(raw: string): string | null {
  const number = normalisePhoneNumber(raw.trim().replace(/^'/, ""));
  return E164_PATTERN.test(number) ? number : null;
}

/** Why a row's number cell `raw` gives no number (`number`: contactNumber(raw)), or null when it gives one. */
export function numberProblem(raw: string, number: string | null): string | null {
  const text = raw.trim();
  if (!text) return "number is missing";
  if (!number) return `number "${text.slice(0, 40)}" is not a phone number in E.164 form, e.g. +14155550123`;
  return null;
}

/**
 * E.164 numbers as one PostgreSQL text[] literal, for `number = any($1::text[])`: one parameter
 * instead of one per number (a 10,000-number lookup spent longer building the list than running it).
 * E.164 holds only + and digits, so no element needs quoting.
 */
export function numberArrayLiteral(numbers: readonly string[]): string {
  if (numbers.some((number) => !E164_PATTERN.test(number))) throw new Error("numberArrayLiteral takes E.164 numbers only");
  return `{${numbers.join(",")}}`;
}
