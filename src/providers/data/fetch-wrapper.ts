import type { HttpError } from "@refinedev/core";
import { API_URL } from "../../config/api-url";
import { strings } from "../../config/strings";

export type QueryValue = string | number | boolean | null | undefined;

export interface ApiRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** A path below the API base ("/call/") or an absolute URL. */
  path: string;
  /** Entries whose value is undefined, null or "" are left out. */
  query?: Record<string, QueryValue>;
  body?: unknown;
  signal?: AbortSignal;
}

/** What every failed request rejects with: Refine's HttpError plus the server's own fields. */
export interface ApiError extends HttpError {
  /** The server's sentence, when it sent one (`{detail, code}`). */
  detail?: string;
  code?: string;
  /** A 409 `slot_taken`'s nearest free slots ({start, end}, contract/calendar.ts slotTakenErrorSchema). */
  slots?: unknown[];
}

export interface ApiClient {
  request<T = unknown>(request: ApiRequest): Promise<T>;
}

export function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ApiError).statusCode === "number" &&
    typeof (value as ApiError).message === "string"
  );
}

export function buildQueryString(query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === "") continue;
    params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The ApiError of a failed response: the server's `detail` as the message, else a sentence with the status. */
export function toApiError(status: number, body: unknown): ApiError {
  const fields = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const detail = typeof fields.detail === "string" && fields.detail ? fields.detail : undefined;
  const code = typeof fields.code === "string" ? fields.code : undefined;
  return {
    message: detail ?? strings.errors.requestFailed(status),
    statusCode: status,
    ...(detail ? { detail } : {}),
    ...(code ? { code } : {}),
    ...(Array.isArray(fields.slots) ? { slots: fields.slots as unknown[] } : {}),
  };
}

/**
 * The one HTTP client of the console: puts the bearer token on every request, reads JSON, and turns
 * every failure into an ApiError carrying the server's `detail` as its message.
 */
export function createApiClient(options: {
  baseUrl?: string;
  getToken: () => Promise<string | null>;
}): ApiClient {
  const baseUrl = (options.baseUrl ?? API_URL).replace(/\/+$/, "");
  return {
    async request<T>({ method = "GET", path, query, body, signal }: ApiRequest): Promise<T> {
      const url = /^https?:\/\//.test(path) ? path : `${baseUrl}${path.startsWith("/") ? "" : "/"}${path}`;
      const headers: Record<string, string> = { Accept: "application/json" };
      const token = await options.getToken();
      if (token) headers.Authorization = `Bearer ${token}`;
      if (body !== undefined) headers["Content-Type"] = "application/json";

      let response: Response;
      try {
        response = await fetch(`${url}${buildQueryString(query)}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        });
      } catch (cause) {
        if (signal?.aborted) throw cause;
        const error: ApiError = { message: strings.errors.network, statusCode: 0 };
        throw error;
      }

      const parsed = await readJson(response);
      if (!response.ok) throw toApiError(response.status, parsed);
      return parsed as T;
    },
  };
}
