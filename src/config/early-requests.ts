/**
 * Requests a page will need, started by the entry script before the page's own code has loaded, so
 * the answer travels while the chunk downloads and compiles (the public agent page: its profile).
 * A page takes its request once with `takeEarly`; a request nobody takes is simply dropped.
 * Kept tiny: it is part of the entry chunk every page pays for.
 */
import { API_URL } from "./api-url";

const early = new Map<string, Promise<Response>>();

const PUBLIC_AGENT = /^\/public\/agent\/([^/]+)\/?$/;

/** Starts the requests for `pathname`'s page (called once, from main.tsx). */
export function startEarlyRequests(pathname: string): void {
  const agent = PUBLIC_AGENT.exec(pathname);
  if (agent?.[1]) {
    let agentId = agent[1];
    try {
      agentId = decodeURIComponent(agentId);
    } catch {
      return; // a malformed %-escape: the page reports it, the entry script must not throw
    }
    const path = `/agent/${encodeURIComponent(agentId)}/public`;
    const request = fetch(`${API_URL}${path}`, { headers: { Accept: "application/json" } });
    request.catch(() => undefined); // a failure is the page's to handle when it takes the request
    early.set(path, request);
  }
}

/** The request already started for `path` (below the API base), once; undefined if none. */
export function takeEarly(path: string): Promise<Response> | undefined {
  const request = early.get(path);
  early.delete(path);
  return request;
}
