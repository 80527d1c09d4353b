import { buildQueryString, toApiError, type ApiError, type QueryValue } from "./fetch-wrapper";
import { API_URL } from "../../config/api-url";
import { strings } from "../../config/strings";

export interface UploadProgress {
  /** Bytes of the request body sent so far, and in all. */
  loaded: number;
  total: number;
}

/**
 * A request whose body may be large (a contact list, a CSV): XMLHttpRequest, because fetch cannot
 * report upload progress. Same contract as the JSON client: the bearer token, a JSON answer, and an
 * ApiError carrying the server's `detail` when it fails. `body` is JSON (an object) or multipart (FormData).
 */
export function sendWithProgress<T>({
  method = "POST",
  path,
  query,
  body,
  token,
  onProgress,
  signal,
}: {
  method?: "POST" | "PUT";
  path: string;
  query?: Record<string, QueryValue>;
  body: FormData | object;
  token: string | null;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, `${API_URL.replace(/\/+$/, "")}${path}${buildQueryString(query)}`);
    xhr.setRequestHeader("Accept", "application/json");
    if (token) xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    const multipart = body instanceof FormData;
    if (!multipart) xhr.setRequestHeader("Content-Type", "application/json");
    if (onProgress) {
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress({ loaded: event.loaded, total: event.total });
      };
    }
    xhr.onload = () => {
      let parsed: unknown = null;
      try {
        parsed = xhr.responseText ? (JSON.parse(xhr.responseText) as unknown) : null;
      } catch {
        parsed = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as T);
      else reject(toApiError(xhr.status, parsed));
    };
    xhr.onerror = () => {
      const error: ApiError = { message: strings.errors.network, statusCode: 0 };
      reject(error);
    };
    xhr.onabort = () => reject(new DOMException("The upload was stopped", "AbortError"));
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(multipart ? body : JSON.stringify(body));
  });
}
