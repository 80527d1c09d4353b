import { sanitizeHtml } from "../lib/sanitize";

/** Renders text that may carry a little markup; everything goes through sanitizeHtml first. */
export function SafeHtml({ html, className }: { html: string; className?: string }) {
  return <span className={className} dangerouslySetInnerHTML={{ __html: sanitizeHtml(html) }} />;
}
