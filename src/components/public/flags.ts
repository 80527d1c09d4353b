/**
 * Flag images for the phone input, served from public/flags (ARCHITECTURE.md §5): the library's default
 * flag CDN (twemoji) is not reachable offline. One SVG per country of react-international-phone's list.
 */
export function flagUrl(iso2: string): string {
  return `${import.meta.env.BASE_URL}flags/${iso2.toLowerCase()}.svg`;
}
