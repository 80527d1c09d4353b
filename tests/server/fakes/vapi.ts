/**
 * A local fake of Vapi's REST API (the part the server uses): node http on 127.0.0.1 with a random port.
 * It records every request, answers like Vapi (ids, NestJS-style error bodies, 404 for unknown ids,
 * 401 for a wrong key) and can be told to fail the next requests with a given status and message.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const FAKE_VAPI_KEY = "vapi-test-private-key";

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or null. */
  json: unknown;
  /** multipart/form-data bodies: the text fields and the files. */
  form: { fields: Record<string, string>; files: RecordedFile[] } | null;
}

export interface Failure {
  status: number;
  /** Vapi's `message`: a string or (validation errors) a list. */
  message?: string | string[];
  /** Raw body instead of Vapi's JSON shape. */
  rawBody?: string;
  /** Only requests matching this (e.g. "POST /assistant"); default any. */
  match?: string;
  /** How many requests fail (default 1); Infinity until cleared. */
  times?: number;
}

export interface FakeVapi {
  url: string;
  requests: RecordedRequest[];
  assistants: Map<string, Record<string, unknown>>;
  files: Map<string, { name: string; bytes: number; mimetype: string }>;
  /** Phone numbers by id (Vapi's shape: provider, number, name, assistantId, …). */
  phoneNumbers: Map<string, Record<string, unknown>>;
  /** Calls placed with POST /call, by id. */
  calls: Map<string, Record<string, unknown>>;
  /** Credentials made with POST /credential (e.g. the webhook's HMAC credential), by id. */
  credentials: Map<string, Record<string, unknown>>;
  /** Tools (GET /tool/{id}), by id: a test adds the ones that exist. */
  tools: Map<string, Record<string, unknown>>;
  fail(failure: Failure): void;
  /** Accepts the connection and never answers (for timeouts). */
  hang(match?: string): void;
  reset(): void;
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export async function startFakeVapi(options: { key?: string } = {}): Promise<FakeVapi> {
  const key = options.key ?? FAKE_VAPI_KEY;
  const requests: RecordedRequest[] = [];
  const assistants = new Map<string, Record<string, unknown>>();
  const files = new Map<string, { name: string; bytes: number; mimetype: string }>();
  const phoneNumbers = new Map<string, Record<string, unknown>>();
  const calls = new Map<string, Record<string, unknown>>();
  const credentials = new Map<string, Record<string, unknown>>();
  const tools = new Map<string, Record<string, unknown>>();
  let failures: Failure[] = [];
  let hangs: (string | undefined)[] = [];
  const orgId = randomUUID();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const raw = Buffer.concat(chunks);
        const method = req.method ?? "GET";
        const path = (req.url ?? "/").split("?")[0]!;
        const query = new URLSearchParams((req.url ?? "").split("?")[1] ?? "");
        const contentType = req.headers["content-type"] ?? "";
        let json: unknown = null;
        let form: RecordedRequest["form"] = null;
        if (contentType.startsWith("application/json") && raw.length > 0) {
          try {
            json = JSON.parse(raw.toString("utf8"));
          } catch {
            json = { unparseable: raw.toString("utf8") };
          }
        } else if (contentType.startsWith("multipart/form-data")) {
          const data = await new Response(raw, { headers: { "content-type": contentType } }).formData();
          form = { fields: {}, files: [] };
          for (const [field, value] of data.entries()) {
            if (typeof value === "string") form.fields[field] = value;
            else form.files.push({ field, filename: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
          }
        }
        requests.push({ method, path, headers: req.headers, json, form });

        const route = `${method} ${path}`;
        const send = (status: number, body: unknown) => {
          res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
          res.end(JSON.stringify(body));
        };
        const error = (status: number, message: string | string[]) => send(status, { message, error: STATUS_TEXT[status] ?? "Error", statusCode: status });

        const hangIndex = hangs.findIndex((match) => match === undefined || route.startsWith(match));
        if (hangIndex >= 0) {
          hangs.splice(hangIndex, 1);
          return;
        }
        const failure = failures.find((candidate) => !candidate.match || route.startsWith(candidate.match));
        if (failure) {
          failure.times = (failure.times ?? 1) - 1;
          if (failure.times <= 0) failures = failures.filter((candidate) => candidate !== failure);
          if (failure.rawBody !== undefined) {
            res.writeHead(failure.status, { "content-type": "text/html" });
            res.end(failure.rawBody);
            return;
          }
          error(failure.status, failure.message ?? STATUS_TEXT[failure.status] ?? "Error");
          return;
        }
        if (req.headers.authorization !== `Bearer ${key}`) {
          error(401, "Invalid Key. Hot tip, you may be using the private key instead of the public key, or vice versa.");
          return;
        }

        const now = new Date().toISOString();
        const assistantMatch = /^\/assistant\/([^/]+)$/.exec(path);
        const fileMatch = /^\/file\/([^/]+)$/.exec(path);
        const phoneNumberMatch = /^\/phone-number\/([^/]+)$/.exec(path);
        const toolMatch = /^\/tool\/([^/]+)$/.exec(path);
        if (toolMatch && method === "GET") {
          const tool = tools.get(decodeURIComponent(toolMatch[1]!));
          if (!tool) return error(404, "Couldn't Get Tool. `tool` Not Found.");
          return send(200, tool);
        }
        const callMatch = /^\/call\/([^/]+)$/.exec(path);
        if (callMatch && method === "GET") {
          const call = calls.get(decodeURIComponent(callMatch[1]!));
          if (!call) return error(404, "Couldn't Get Call. `call` Not Found.");
          return send(200, call);
        }
        if (route === "GET /call") {
          // ListCalls: phoneNumberId, createdAtGe / createdAtLe, limit (newest first, as Vapi lists).
          const since = query.get("createdAtGe");
          const until = query.get("createdAtLe");
          const listed = [...calls.values()]
            .filter((call) => !query.get("phoneNumberId") || call.phoneNumberId === query.get("phoneNumberId"))
            .filter((call) => (!since || String(call.createdAt) >= since) && (!until || String(call.createdAt) <= until))
            .reverse()
            .slice(0, Number(query.get("limit") ?? 100));
          return send(200, listed);
        }
        if (route === "POST /call") {
          const id = randomUUID();
          const call = { ...(json as Record<string, unknown>), id, orgId, type: "outboundPhoneCall", status: "queued", createdAt: now, updatedAt: now };
          calls.set(id, call);
          return send(201, call);
        }
        if (route === "POST /credential") {
          const id = randomUUID();
          const credential = { ...(json as Record<string, unknown>), id, orgId, createdAt: now, updatedAt: now };
          credentials.set(id, credential);
          return send(201, credential);
        }
        if (route === "POST /assistant") {
          const id = randomUUID();
          const assistant = { ...(json as Record<string, unknown>), id, orgId, createdAt: now, updatedAt: now };
          assistants.set(id, assistant);
          send(201, assistant);
        } else if (assistantMatch && method === "PATCH") {
          const existing = assistants.get(assistantMatch[1]!);
          if (!existing) return error(404, "Couldn't Get Assistant. `assistant` Not Found.");
          const assistant = { ...existing, ...(json as Record<string, unknown>), updatedAt: now };
          assistants.set(assistantMatch[1]!, assistant);
          send(200, assistant);
        } else if (assistantMatch && method === "DELETE") {
          const existing = assistants.get(assistantMatch[1]!);
          if (!existing) return error(404, "Couldn't Get Assistant. `assistant` Not Found.");
          assistants.delete(assistantMatch[1]!);
          send(200, existing);
        } else if (route === "POST /file") {
          const file = form?.files.find((candidate) => candidate.field === "file");
          if (!file) return error(400, "File is required");
          const id = randomUUID();
          files.set(id, { name: file.filename, bytes: file.bytes.length, mimetype: file.contentType });
          send(201, {
            id,
            orgId,
            object: "file",
            status: "done",
            name: file.filename.slice(0, 40),
            originalName: file.filename,
            bytes: file.bytes.length,
            mimetype: file.contentType,
            createdAt: now,
            updatedAt: now,
          });
        } else if (fileMatch && method === "DELETE") {
          const existing = files.get(fileMatch[1]!);
          if (!existing) return error(404, "Couldn't Get File. `file` Not Found.");
          files.delete(fileMatch[1]!);
          send(200, { id: fileMatch[1], orgId, ...existing, createdAt: now, updatedAt: now });
        } else if (route === "POST /phone-number") {
          const body = json as Record<string, unknown>;
          const id = randomUUID();
          // A number from Vapi gets digits in the area code asked for; an import keeps its own.
          const digits = () => String(Math.floor(Math.random() * 1e7)).padStart(7, "0");
          const number = body.provider === "vapi" ? `+1${String(body.numberDesiredAreaCode ?? "415")}${digits()}` : body.number;
          const phoneNumber = { ...body, number, id, orgId, status: "active", createdAt: now, updatedAt: now };
          phoneNumbers.set(id, phoneNumber);
          send(201, phoneNumber);
        } else if (phoneNumberMatch && (method === "GET" || method === "PATCH" || method === "DELETE")) {
          const id = phoneNumberMatch[1]!;
          const existing = phoneNumbers.get(id);
          if (!existing) return error(404, "Couldn't Get Phone Number. `phoneNumber` Not Found.");
          if (method === "GET") return send(200, existing);
          if (method === "DELETE") {
            phoneNumbers.delete(id);
            return send(200, existing);
          }
          // PATCH: given fields replace; null clears (how Vapi takes an assistant off a number).
          const merged: Record<string, unknown> = { ...existing, ...(json as Record<string, unknown>), updatedAt: now };
          for (const [field, value] of Object.entries(merged)) if (value === null) delete merged[field];
          phoneNumbers.set(id, merged);
          send(200, merged);
        } else {
          error(404, `Cannot ${method} ${path}`);
        }
      })().catch((failure: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: `fake Vapi failed: ${String(failure)}`, statusCode: 500 }));
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    assistants,
    files,
    phoneNumbers,
    calls,
    credentials,
    tools,
    fail(failure) {
      failures.push({ ...failure });
    },
    hang(match) {
      hangs.push(match);
    },
    reset() {
      requests.length = 0;
      failures = [];
      hangs = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
