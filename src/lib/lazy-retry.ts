import { createElement, lazy, type ComponentProps, type ComponentType } from "react";

/** The waits before the second and third try of a screen's code (a dropped connection often comes back). */
export const LAZY_RETRY_DELAYS_MS = [400, 1_500] as const;

/** A screen's code that could not be loaded after every try (the error boundary words it as such). */
export class ScreenLoadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "ScreenLoadError";
  }
}

/** `load()`, tried again after each of `delays` when it fails; the last failure as a ScreenLoadError. */
export async function importWithRetries<T>(load: () => Promise<T>, delays: readonly number[] = LAZY_RETRY_DELAYS_MS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      if (attempt >= delays.length) throw new ScreenLoadError(error);
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }
}

/** Raised by the error boundary's "Try again" and by moving to another screen: failed imports may be tried again. */
let retryGeneration = 0;
export function allowScreenRetry(): void {
  retryGeneration += 1;
}

/**
 * React.lazy for a screen or a dialog, with two differences. Its import is tried again (LAZY_RETRY_DELAYS_MS)
 * before it fails. And a failure is not kept for good: React.lazy remembers a rejected import for the life of
 * the page, so after a dropped connection or a release that replaced the chunk's file, the screen would stay
 * broken until a reload; here, once the error boundary allows it (allowScreenRetry: "Try again", or moving to
 * another screen and back), the next render imports again. Not before: rendered again at once, a failed import
 * would suspend anew instead of reaching the error boundary.
 */
// The constraint is React.lazy's own (ComponentType<any>): the props are the component's, whatever they are.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function lazyRetry<T extends ComponentType<any>>(load: () => Promise<{ default: T }>, delays: readonly number[] = LAZY_RETRY_DELAYS_MS): T {
  let failedAt: number | null = null;
  const fresh = () =>
    lazy(() =>
      importWithRetries(load, delays).catch((error: unknown) => {
        failedAt = retryGeneration;
        throw error;
      }),
    );
  let current = fresh();
  function LazyRetry(props: ComponentProps<T>) {
    if (failedAt !== null && failedAt < retryGeneration) {
      failedAt = null;
      current = fresh();
    }
    return createElement(current, props);
  }
  return LazyRetry as unknown as T;
}
