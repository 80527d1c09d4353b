/**
 * What the store adapters share: reading headers, the base64 HMAC both Shopify and WooCommerce sign
 * with, and turning a store's loosely typed JSON (decimal strings, national phone numbers, attributes
 * lists) into a StoreOrderInput that fits the order's limits.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { E164_PATTERN } from "../../../contract/agent";
import { isConsentYes } from "../../../contract/calling-rules";
import {
  majorToMinor,
  ORDER_ITEM_NAME_MAX_LENGTH,
  ORDER_ITEMS_MAX,
  ORDER_REFERENCE_MAX_LENGTH,
  ORDER_TEXT_MAX_LENGTH,
  ORDER_URL_MAX_LENGTH,
} from "../../../contract/order-shared";
import { normalisePhoneNumber } from "../../../contract/phone-number";
import type { Headers, StoreOrderInput } from "./types";

/** The names of the attributes a shop adds at checkout for consent to be called (issue 18). */
export const CONSENT_KEYS = { given: "call_consent", source: "call_consent_source", at: "call_consent_at" } as const;

export const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  const one = Array.isArray(value) ? value[0] : value;
  return one?.trim() || undefined;
};

/**
 * Whether `given` is the base64 HMAC-SHA256 of the raw body with `secret` (Shopify's and WooCommerce's
 * signature). The header is decoded and compared as bytes, in constant time, only when it is a digest's
 * length (a length check leaks nothing: every genuine signature is 32 bytes).
 */
export function base64HmacMatches(rawBody: Buffer, secret: string, given: string): boolean {
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(given)) return false;
  const sent = Buffer.from(given, "base64");
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/** The delivery id a body is also known by (see Verification): its SHA-256. */
export const bodyDigestId = (rawBody: Buffer): string => `sha256:${createHash("sha256").update(rawBody).digest("hex")}`;

/** The base64 HMAC a store would send for `rawBody` (the tests and the README's examples sign with it). */
export const base64Hmac = (rawBody: Buffer | string, secret: string): string => createHmac("sha256", secret).update(rawBody).digest("base64");

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
export const recordAt = (value: Record<string, unknown>, key: string): Record<string, unknown> => (isRecord(value[key]) ? value[key] : {});

/** Trimmed non-empty text (numbers as their digits), else null; cut to `max` characters. */
export function textOf(value: unknown, max = ORDER_TEXT_MAX_LENGTH): string | null {
  const text = typeof value === "string" ? value.trim() : typeof value === "number" && Number.isFinite(value) ? String(value) : "";
  return text ? text.slice(0, max) : null;
}

/** An ISO 8601 time (with or without its offset: stores that leave it out mean UTC, as WooCommerce's *_gmt fields do). */
export function dateOf(value: unknown): Date | null {
  if (typeof value !== "string" || !value.trim()) return null;
  const text = value.trim();
  const withZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text}Z` : text;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(withZone)) return null;
  const date = new Date(withZone);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function currencyOf(value: unknown): string | null {
  const text = typeof value === "string" ? value.trim().toUpperCase() : "";
  return /^[A-Z]{3}$/.test(text) ? text : null;
}

/** A store's decimal amount (string or number) in minor units of `currency`; null when it is not one (or negative). */
export function minorOf(value: unknown, currency: string): number | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const minor = majorToMinor(value, currency);
  return minor !== null && minor >= 0 ? minor : null;
}

export const fullName = (first: unknown, last: unknown): string | null => textOf([textOf(first), textOf(last)].filter(Boolean).join(" "));

/** An http(s) address that fits an order, else null. */
export function checkoutUrlOf(value: unknown): string | null {
  const text = typeof value === "string" ? value.trim() : "";
  if (!text || text.length > ORDER_URL_MAX_LENGTH) return null;
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? text : null;
  } catch {
    return null;
  }
}

export function emailOf(value: unknown): string | null {
  const text = textOf(value);
  return text && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) ? text : null;
}

export const referenceOf = (...candidates: unknown[]): string | null => {
  for (const candidate of candidates) {
    const text = textOf(candidate, ORDER_REFERENCE_MAX_LENGTH);
    if (text) return text;
  }
  return null;
};

/**
 * Country calling codes of the countries shops most often sell in, for numbers typed without one (a
 * billing phone "(502) 459-2181" with country US). A national number from a country not listed here
 * is not usable (the delivery says so); numbers given with + or 00 work from anywhere.
 */
const CALLING_CODES: Readonly<Record<string, string>> = {
  US: "1", CA: "1", PR: "1", GB: "44", IE: "353", AU: "61", NZ: "64", DE: "49", AT: "43", CH: "41", FR: "33", BE: "32", NL: "31",
  LU: "352", ES: "34", PT: "351", IT: "39", DK: "45", SE: "46", NO: "47", FI: "358", IS: "354", PL: "48", CZ: "420", SK: "421",
  HU: "36", RO: "40", BG: "359", GR: "30", HR: "385", SI: "386", EE: "372", LV: "371", LT: "370", MT: "356", CY: "357",
  MX: "52", BR: "55", AR: "54", CL: "56", CO: "57", PE: "51", ZA: "27", IN: "91", SG: "65", JP: "81", KR: "82", HK: "852",
  AE: "971", IL: "972", TR: "90", PH: "63", MY: "60",
};
/** Italy keeps the leading 0 of its landlines after the country code; everywhere else listed it is the trunk prefix. */
const KEEPS_LEADING_ZERO = new Set(["IT"]);

/**
 * A phone number as the store sent it, in E.164 when it can be: "+1 (502) 459-2181" as it is, "00…" as
 * "+…", a national number with the country code of `country` (ISO 3166 alpha-2). Null when it cannot.
 */
export function e164From(raw: unknown, country: unknown): string | null {
  const text = textOf(raw, 60);
  if (!text) return null;
  let number = normalisePhoneNumber(text);
  if (number.startsWith("00")) number = `+${number.slice(2)}`;
  if (!number.startsWith("+")) {
    const code = typeof country === "string" ? CALLING_CODES[country.trim().toUpperCase()] : undefined;
    if (!code || !/^\d+$/.test(number)) return null;
    const iso = String(country).trim().toUpperCase();
    // North American numbers are often written with their own 1 in front.
    const national = code === "1" && number.length === 11 && number.startsWith("1") ? number.slice(1) : KEEPS_LEADING_ZERO.has(iso) ? number : number.replace(/^0+/, "");
    number = `+${code}${national}`;
  }
  return E164_PATTERN.test(number) ? number : null;
}

/** The first candidate that is a usable number ({number, country} in the order the store's data is trusted). */
export function firstPhone(candidates: { number: unknown; country?: unknown }[]): string | null {
  for (const candidate of candidates) {
    const number = e164From(candidate.number, candidate.country);
    if (number) return number;
  }
  return null;
}

export const NO_PHONE = "no usable phone number on the customer, the billing or the shipping address: nothing to call";

/**
 * Consent to be called from a store's key/value attributes (Shopify's note_attributes, WooCommerce's
 * meta_data): `call_consent` true/yes (isConsentYes), with `call_consent_source` and `call_consent_at`.
 * Given without a source: `defaultSource`; without a time: `seenAt` (the checkout that carried it).
 * Email and SMS marketing consent are never read.
 */
export function consentFrom(attributes: Map<string, unknown>, defaultSource: string, seenAt: Date): StoreOrderInput["consent"] {
  if (!isConsentYes(attributes.get(CONSENT_KEYS.given))) return { given: false, source: null, at: null };
  return {
    given: true,
    source: textOf(attributes.get(CONSENT_KEYS.source)) ?? defaultSource,
    at: dateOf(attributes.get(CONSENT_KEYS.at)) ?? seenAt,
  };
}

/** Key/value pairs from a list of objects (`[{name, value}]`, `[{key, value}]`), keys trimmed and lower-cased; the first of a key wins. */
export function attributesOf(list: unknown, keyField: "name" | "key"): Map<string, unknown> {
  const attributes = new Map<string, unknown>();
  if (!Array.isArray(list)) return attributes;
  for (const entry of list) {
    if (!isRecord(entry) || typeof entry[keyField] !== "string") continue;
    const key = entry[keyField].trim().toLowerCase();
    if (!attributes.has(key)) attributes.set(key, entry.value);
  }
  return attributes;
}

/** Line items within the order's limits: a name, a whole quantity of at least 1, a unit price in minor units. */
export function itemsOf(list: unknown, read: (item: Record<string, unknown>) => { name: unknown; quantity: unknown; priceMinor: number | null }): StoreOrderInput["items"] {
  if (!Array.isArray(list)) return [];
  const items: StoreOrderInput["items"] = [];
  for (const entry of list) {
    if (!isRecord(entry)) continue;
    const { name, quantity, priceMinor } = read(entry);
    const title = textOf(name, ORDER_ITEM_NAME_MAX_LENGTH);
    const count = typeof quantity === "number" ? quantity : typeof quantity === "string" ? Number(quantity) : NaN;
    if (!title || !Number.isInteger(count) || count < 1) continue;
    items.push({ name: title, quantity: Math.min(count, 1_000_000), priceMinor: priceMinor ?? 0 });
    if (items.length === ORDER_ITEMS_MAX) break;
  }
  return items;
}

/** Distinct non-empty ids, in order. */
export const distinct = (...ids: (string | null | undefined)[]): string[] => [...new Set(ids.filter((id): id is string => !!id))];
