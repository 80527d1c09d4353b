/** A fetch fake: answers only what a test says it may, and fails the test on anything else. */
import { afterEach, expect, vi } from "vitest";

export interface RecordedRequest {
  method: string;
  /** Path and query as sent, e.g. "/api/call/?page=1&limit=20". */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

type Responder = (request: RecordedRequest) => Response | Promise<Response>;

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

export class FetchFake {
  readonly requests: RecordedRequest[] = [];
  readonly unhandled: string[] = [];
  private routes: Array<{ method: string; path: string; respond: Responder }> = [];

  on(method: string, path: string, respond: Responder): this {
    this.routes.push({ method: method.toUpperCase(), path, respond });
    return this;
  }

  readonly fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input), window.location.origin);
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const rawBody = init?.body ?? (request ? await request.clone().text() : undefined);
    const recorded: RecordedRequest = {
      method,
      url: `${url.pathname}${url.search}`,
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init?.headers ?? request?.headers),
      body: typeof rawBody === "string" && rawBody ? JSON.parse(rawBody) : undefined,
    };
    this.requests.push(recorded);
    // The latest handler for a method and path wins, so a test can change an answer midway.
    const route = this.routes.findLast((candidate) => candidate.method === method && candidate.path === url.pathname);
    if (!route) {
      this.unhandled.push(`${method} ${recorded.url}`);
      throw new TypeError(`Unhandled request in test: ${method} ${recorded.url}`);
    }
    return route.respond(recorded);
  });

  to(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method.toUpperCase() && request.path === path);
  }
}

let activeFake: FetchFake | null = null;

/** Replaces global fetch for this test; a request nobody handled fails the test afterwards. */
export function installFetchFake(): FetchFake {
  const fake = new FetchFake();
  activeFake = fake;
  vi.stubGlobal("fetch", fake.fetch);
  return fake;
}

afterEach(() => {
  if (activeFake) {
    const unhandled = activeFake.unhandled;
    activeFake = null;
    expect(unhandled, "requests no test handler answered").toEqual([]);
  }
});
