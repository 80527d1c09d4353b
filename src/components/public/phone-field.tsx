/**
 * The recipient's phone number (spec §2, §3 "Country entry", §5, §9): react-international-phone's hook
 * with our own country picker, default country US, the '+' prefix always present, and at most 15 digits
 * (E.164) unless `allowLongNumbers` is set. Countries the library has no mask for get a mask of
 * 15 − dial-code digits; every mask the library has already fits in 15.
 */
import { useMemo, useRef } from "react";
import {
  buildCountryData,
  defaultCountries,
  parseCountry,
  usePhoneInput,
  type CountryData,
  type CountryIso2,
  type ParsedCountry,
} from "react-international-phone";
import { CountryPicker } from "./country-picker";

export const MAX_PHONE_DIGITS = 15;
export const DEFAULT_COUNTRY: CountryIso2 = "us";

const digitsOf = (value: string) => value.replace(/\D/g, "");

/** The library's countries, each limited to 15 digits in all. */
export function countriesCappedAt15(): CountryData[] {
  return defaultCountries.map((data) => {
    const country = parseCountry(data);
    if (country.format) return data;
    return buildCountryData({ ...country, format: ".".repeat(MAX_PHONE_DIGITS - country.dialCode.length) });
  });
}

/** '+' and at most 15 digits (a guard behind the masks). */
export function capPhoneDigits(phone: string, allowLongNumbers = false): string {
  const digits = digitsOf(phone);
  if (!digits) return "";
  return `+${allowLongNumbers ? digits : digits.slice(0, MAX_PHONE_DIGITS)}`;
}

/** Empty: nothing typed beyond the country's dial code. */
export function isPhoneEmpty(phone: string, country: ParsedCountry | null): boolean {
  const digits = digitsOf(phone);
  return digits === "" || (!!country && digits === country.dialCode);
}

const CAPPED = countriesCappedAt15();

export interface PhoneValue {
  /** E.164: '+' and digits. */
  phone: string;
  country: ParsedCountry;
  empty: boolean;
}

export function PhoneField({
  id,
  onChange,
  onBlur,
  disabled = false,
  invalid = false,
  describedBy,
  defaultCountry = DEFAULT_COUNTRY,
  allowLongNumbers = false,
}: {
  id: string;
  onChange: (value: PhoneValue) => void;
  onBlur?: () => void;
  disabled?: boolean;
  invalid?: boolean;
  describedBy?: string;
  defaultCountry?: CountryIso2;
  allowLongNumbers?: boolean;
}) {
  const countryData = allowLongNumbers ? defaultCountries : CAPPED;
  const countries = useMemo(() => countryData.map(parseCountry), [countryData]);
  // The country a cleared field goes back to: the one last picked from the list, else the default.
  const homeCountry = useRef<CountryIso2>(defaultCountry);
  const { inputValue, country, setCountry, handlePhoneValueChange, inputRef } = usePhoneInput({
    defaultCountry,
    countries: countryData,
    prefix: "+",
    allowMaskOverflow: allowLongNumbers,
    onChange: ({ phone, country: current }) => {
      const capped = capPhoneDigits(phone, allowLongNumbers);
      onChange({ phone: capped, country: current, empty: isPhoneEmpty(capped, current) });
    },
  });

  return (
    <div className={`pub-phone${invalid ? " pub-phone--invalid" : ""}${disabled ? " pub-phone--disabled" : ""}`}>
      <CountryPicker
        countries={countries}
        selected={country}
        disabled={disabled}
        onSelect={(picked) => {
          homeCountry.current = picked.iso2;
          setCountry(picked.iso2, { focusOnInput: true });
        }}
      />
      <input
        ref={inputRef}
        id={id}
        type="tel"
        className="pub-phone__input"
        inputMode="tel"
        autoComplete="tel"
        value={inputValue}
        onChange={(event) => {
          // Cleared (select all + delete, or backspace past the '+'): the home country's dial code comes
          // back, so "4155550100" typed next is +1 (415)… and not +41 55…. A '+' typed on purpose stays,
          // so a whole international number can still be typed over the field.
          const cleared = event.currentTarget.value.trim() === "";
          handlePhoneValueChange(event);
          if (cleared) setCountry(homeCountry.current);
        }}
        onFocus={(event) => {
          // Only the prefilled dial code: type after it, wherever focus put the caret (Tab selects all,
          // focus() puts it first), or "4155550123" would become +41 55… instead of +1 (415)….
          const input = event.currentTarget;
          if (digitsOf(input.value) !== country.dialCode) return;
          const toEnd = () => {
            const end = input.value.length;
            if (input.selectionStart !== end || input.selectionEnd !== end) input.setSelectionRange(end, end);
          };
          toEnd();
          setTimeout(toEnd, 0);
        }}
        onKeyDown={(event) => {
          // The same rule at the first keystroke, whatever moved the caret since focus (the library's own
          // caret handling can run after ours): a digit typed into a field holding only the dial code
          // goes after it. A selection (e.g. to type another dial code) is left alone.
          const input = event.currentTarget;
          if (!/^\d$/.test(event.key) || digitsOf(input.value) !== country.dialCode) return;
          if (input.selectionStart !== input.selectionEnd) return;
          const end = input.value.length;
          if (input.selectionStart !== end) input.setSelectionRange(end, end);
        }}
        onBlur={onBlur}
        disabled={disabled}
        required
        aria-required="true"
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
      />
    </div>
  );
}
