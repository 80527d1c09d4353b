import { useLayoutEffect, useRef, useState, type RefObject } from "react";

/** Under jsdom (no layout) and before the first measurement. */
export const FALLBACK_WIDTH = 640;

/** The element's width, kept current as the window (or the sidebar) changes it (the dashboard's and Billing's charts). */
export function useWidth<T extends HTMLElement>(): [RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setWidth(element.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width || FALLBACK_WIDTH];
}
