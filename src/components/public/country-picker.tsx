/**
 * The phone input's country picker: a button with the flag and dial code that opens a searchable list.
 * The search filters 250 ms after the last keystroke (spec §9); arrows move, Enter picks, Escape closes.
 */
import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { ParsedCountry } from "react-international-phone";
import { strings } from "../../config/strings";
import { flagUrl } from "./flags";

export const COUNTRY_SEARCH_DEBOUNCE_MS = 250;

const t = strings.publicAgent.country;

const fold = (value: string) =>
  value
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .trim();

/** Name contains the query, or the ISO code equals it, or the dial code starts with its digits. */
export function filterCountries(countries: ParsedCountry[], query: string): ParsedCountry[] {
  const q = fold(query);
  if (!q) return countries;
  const digits = q.replace(/^\+/, "");
  const numeric = /^\d+$/.test(digits);
  return countries.filter((country) =>
    numeric ? country.dialCode.startsWith(digits) : fold(country.name).includes(q) || country.iso2 === q,
  );
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

export function CountryPicker({
  countries,
  selected,
  onSelect,
  disabled = false,
}: {
  countries: ParsedCountry[];
  selected: ParsedCountry;
  onSelect: (country: ParsedCountry) => void;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const debouncedQuery = useDebounced(query, COUNTRY_SEARCH_DEBOUNCE_MS);
  const shown = useMemo(() => filterCountries(countries, debouncedQuery), [countries, debouncedQuery]);
  const root = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const listId = useId();
  const optionId = (iso2: string) => `${listId}-${iso2}`;

  const close = (refocus: boolean) => {
    setOpen(false);
    setQuery("");
    if (refocus) button.current?.focus();
  };

  const openList = () => {
    const index = countries.findIndex((country) => country.iso2 === selected.iso2);
    setActive(Math.max(0, index));
    setOpen(true);
  };

  // A new result list starts at its first entry.
  const [shownFor, setShownFor] = useState(shown);
  if (shownFor !== shown) {
    setShownFor(shown);
    if (debouncedQuery) setActive(0);
  }

  useEffect(() => {
    if (!open) return;
    search.current?.focus();
    const onPointerDown = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) {
        setOpen(false);
        setQuery("");
      }
    };
    document.addEventListener("mousedown", onPointerDown);
    return () => document.removeEventListener("mousedown", onPointerDown);
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const option = list.current?.children[active] as HTMLElement | undefined;
    option?.scrollIntoView?.({ block: "nearest" });
  }, [open, active]);

  const pick = (country: ParsedCountry | undefined) => {
    if (!country) return;
    onSelect(country);
    close(false);
  };

  const onSearchKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setActive((index) => Math.min(index + 1, shown.length - 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive((index) => Math.max(index - 1, 0));
    } else if (event.key === "Enter") {
      event.preventDefault();
      pick(shown[active]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === "Tab") {
      close(false);
    }
  };

  const activeCountry = shown[active];

  return (
    <div className="pub-country" ref={root}>
      <button
        ref={button}
        type="button"
        className="pub-country__button"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-label={t.button(selected.name, selected.dialCode)}
        disabled={disabled}
        onClick={() => (open ? close(false) : openList())}
      >
        <img className="pub-flag" src={flagUrl(selected.iso2)} alt="" width={24} height={16} />
        <span className="pub-country__caret" aria-hidden="true" />
      </button>
      {open && (
        <div className="pub-country__popover">
          <input
            ref={search}
            type="search"
            className="pub-input pub-country__search"
            role="combobox"
            aria-label={t.search}
            aria-expanded="true"
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={activeCountry ? optionId(activeCountry.iso2) : undefined}
            placeholder={t.searchPlaceholder}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={onSearchKeyDown}
            autoComplete="off"
          />
          <ul ref={list} id={listId} className="pub-country__list" role="listbox" aria-label={t.list}>
            {shown.map((country, index) => (
              <li
                key={country.iso2}
                id={optionId(country.iso2)}
                role="option"
                aria-selected={country.iso2 === selected.iso2}
                className={`pub-country__option${index === active ? " pub-country__option--active" : ""}`}
                onMouseEnter={() => setActive(index)}
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => pick(country)}
              >
                <img className="pub-flag" src={flagUrl(country.iso2)} alt="" width={24} height={16} loading="lazy" />
                <span className="pub-country__name">{country.name}</span>
                <span className="pub-country__dial">+{country.dialCode}</span>
              </li>
            ))}
          </ul>
          {shown.length === 0 && <p className="pub-country__none">{t.none}</p>}
        </div>
      )}
    </div>
  );
}
