import DOMPurify from "dompurify";

/** Spec §2: tooltip text may carry only these tags and attributes. */
export const ALLOWED_TAGS = ["b", "i", "em", "strong", "a", "p", "br"];
export const ALLOWED_ATTR = ["href", "target", "rel"];

/**
 * The only way user-ish text becomes HTML in the console. Drops every other tag (script, style, img…),
 * every other attribute (on* handlers, style), and link targets DOMPurify does not trust, so
 * `javascript:` links lose their href. (A custom URI pattern would also apply to target/rel values.)
 */
export function sanitizeHtml(dirty: string): string {
  return DOMPurify.sanitize(dirty, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
  });
}
