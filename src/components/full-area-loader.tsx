import { strings } from "../config/strings";

/**
 * The loader that fills the area it replaces: the page while the console boots or the session loads,
 * the content area while a screen's code loads. Plain CSS (styles.css), so the entry chunk needs no antd.
 */
export function FullAreaLoader({ label = strings.loading }: { label?: string }) {
  // aria-label names it ("Loading Billing"): a status takes no name from its content.
  return (
    <div className="full-area-loader" role="status" aria-live="polite" aria-label={label}>
      <span className="full-area-loader__spinner" aria-hidden="true" />
      <span className="visually-hidden">{label}</span>
    </div>
  );
}
