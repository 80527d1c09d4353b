import { defaultCountries, getActiveFormattingMask, guessCountryByPartialPhoneNumber } from "react-international-phone";

/**
 * An E.164 number laid out for reading with its country's mask ("+1 (415) 555-0142"); the digits
 * grouped plainly when no country's mask fits. The E.164 form stays what is stored and copied.
 */
export function formatPhoneNumber(e164: string): string {
  const digits = e164.replace(/\D/g, "");
  if (!digits) return e164;
  const { country } = guessCountryByPartialPhoneNumber({ phone: `+${digits}`, countries: defaultCountries });
  if (!country) return `+${digits}`;
  const national = digits.slice(country.dialCode.length);
  const mask = getActiveFormattingMask({ phone: `+${digits}`, country });
  const slots = (mask.match(/\./g) ?? []).length;
  if (!mask || slots !== national.length) return `+${country.dialCode} ${national}`;
  let index = 0;
  const laidOut = mask.replace(/\./g, () => national[index++] ?? "");
  return `+${country.dialCode} ${laidOut}`;
}
