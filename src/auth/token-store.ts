/** Spec §6/§9: the signed-in user's bearer token is refreshed every 10 s. */
export const TOKEN_REFRESH_MS = 10_000;
/**
 * A token fetched longer ago than this is fetched again before use: the tokens live minutes (local) or a
 * minute (Clerk), and a sleeping laptop or a throttled background tab can hold the 10 s timer back.
 */
export const TOKEN_STALE_MS = 30_000;

export interface TokenStore {
  /** Fetches a token now and then every `intervalMs` until stopped. */
  start(): void;
  stop(): void;
  /** Fetches a token now (after switching organisation the old token carries the old one). */
  refresh(): Promise<string | null>;
  /** The latest token; waits for a refresh in flight so the first request after sign-in carries one. */
  get(): Promise<string | null>;
}

export function createTokenStore(
  fetchToken: () => Promise<string | null>,
  intervalMs: number = TOKEN_REFRESH_MS,
): TokenStore {
  let token: string | null = null;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<string | null> | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let generation = 0;

  const refresh = (): Promise<string | null> => {
    const mine = generation;
    const request = fetchToken()
      .then((fresh) => {
        // A token fetched before sign-out must not come back after it.
        if (mine === generation) {
          token = fresh;
          fetchedAt = Date.now();
        }
        return token;
      })
      // Keep the last token on a failed refresh: the next tick tries again, and a token that is
      // really invalid is answered 401 by the API.
      .catch(() => token)
      .finally(() => {
        if (inFlight === request) inFlight = null;
      });
    inFlight = request;
    return request;
  };

  return {
    start() {
      if (timer) return;
      void refresh();
      timer = setInterval(() => void refresh(), intervalMs);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
      generation += 1;
      token = null;
      fetchedAt = Number.NEGATIVE_INFINITY;
      inFlight = null;
    },
    refresh,
    async get() {
      if (inFlight) return inFlight;
      if (timer !== null && (token === null || Date.now() - fetchedAt > TOKEN_STALE_MS)) return refresh();
      return token;
    },
  };
}
