import { useMediaQuery } from "./media-query";

/** The operating system's "reduce motion" setting (WCAG 2.3.3), as the browser reports it. */
export const REDUCED_MOTION_QUERY = "(prefers-reduced-motion: reduce)";

/** Whether the person asked for less motion; follows the setting when it changes (no reload). */
export function usePrefersReducedMotion(): boolean {
  return useMediaQuery(REDUCED_MOTION_QUERY);
}
