import { useSyncExternalStore } from "react";

function listOf(query: string): MediaQueryList | null {
  return typeof window !== "undefined" && typeof window.matchMedia === "function" ? window.matchMedia(query) : null;
}

/**
 * Whether the media query matches, read at once (not after a first effect, as antd's Grid.useBreakpoint
 * is) and kept current as the window or the system setting changes. False where there is no window.
 */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = listOf(query);
      if (!list) return () => undefined;
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    () => listOf(query)?.matches ?? false,
    () => false,
  );
}
