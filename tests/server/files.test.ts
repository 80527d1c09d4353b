/**
 * Knowledge-base files (spec §7): POST /file/upload, GET /file/files, DELETE /file/file/{id}, in sandbox
 * mode (bytes under the store's folder) and Vapi mode (bytes at the fake Vapi).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_AGENT_CONFIG } from "../../contract/agent";
import { formatByteLimit, type KnowledgeBaseFile } from "../../contract/file";
import { ConfigError, loadConfig, type AppConfig } from "../../server/config";
import { orgScope } from "../../server/data/orgScope";
import type { Database } from "../../server/db/client";
import { agents, knowledgeBaseFiles } from "../../server/db/schema";
import { fileStores } from "../../server/files/store";
import { sanitizeFileName } from "../../server/files/validate";
import { FAKE_VAPI_KEY, startFakeVapi, type FakeVapi } from "./fakes/vapi";
import { bearer, buildTestApp, createOrganisation, migratedDatabase, signUp } from "./helpers";

interface Part {
  field?: string;
  filename?: string;
  contentType?: string;
  content: Buffer | string;
}

function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----test${randomUUID().replace(/-/g, "")}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.field ?? "file"}"${part.filename !== undefined ? `; filename="${part.filename}"` : ""}`;
    const type = part.contentType !== undefined ? `\r\nContent-Type: ${part.contentType}` : "";
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`, "utf8"));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content, "utf8"));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
/** The start of a ZIP holding a WordprocessingML package (enough for the sniffing). */
const DOCX = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.from("\0\0[Content_Types].xml...word/document.xml...PK")]);

const SAMPLES: { filename: string; contentType: string; content: Buffer | string; mime: string }[] = [
  { filename: "pricing.pdf", contentType: "application/pdf", content: PDF, mime: "application/pdf" },
  { filename: "notes.txt", contentType: "text/plain", content: "Open 9 to 5, Monday to Friday.\n", mime: "text/plain" },
  { filename: "faq.md", contentType: "application/octet-stream", content: "# FAQ\n\n- Do you deliver? Yes.\n", mime: "text/markdown" },
  { filename: "menu.csv", contentType: "application/vnd.ms-excel", content: "item,price\ntea,2.50\n", mime: "text/csv" },
  { filename: "catalogue.json", contentType: "application/json", content: '{"items":[{"sku":"A1"}]}', mime: "application/json" },
  {
    filename: "policy.docx",
    contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    content: DOCX,
    mime: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  },
];

let database: Database;
let fake: FakeVapi;
/** DATA_DIR for this file's apps: with PGlite in memory the store uses a temporary folder anyway, with PostgreSQL (TEST_DATABASE_URL) it uses DATA_DIR/files. */
const dataDirs: string[] = [];
beforeAll(async () => {
  database = await migratedDatabase();
  fake = await startFakeVapi();
});
afterAll(async () => {
  await fake.close();
  await database.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

interface Session {
  app: FastifyInstance;
  config: AppConfig;
  headers: Record<string, string>;
  orgId: string;
}

async function session(env: Record<string, string> = {}): Promise<Session> {
  const dataDir = mkdtempSync(join(tmpdir(), "vap-files-test-"));
  dataDirs.push(dataDir);
  const { app, config } = await buildTestApp(database, { DATA_DIR: dataDir, ...env });
  const { token } = await signUp(app);
  const orgId = await createOrganisation(app, token);
  return { app, config, headers: bearer(token), orgId };
}

const upload = (s: Session, parts: Part[]) => {
  const body = multipart(parts);
  return s.app.inject({ method: "POST", url: "/api/file/upload", headers: { ...s.headers, ...body.headers }, payload: body.payload });
};
const list = (s: Session, query = "") => s.app.inject({ method: "GET", url: `/api/file/files${query}`, headers: s.headers });
const remove = (s: Session, id: string) => s.app.inject({ method: "DELETE", url: `/api/file/file/${id}`, headers: s.headers });

/** Every file under the store's folder (relative paths). */
function storedFiles(s: Session): string[] {
  const root = fileStores.get(s.config)!.root;
  return existsSync(root) ? (readdirSync(root, { recursive: true, encoding: "utf8" }) as string[]).filter((path) => path.includes("/")) : [];
}
const rowCount = async (orgId: string) => orgScope(database.db, orgId).count(knowledgeBaseFiles);

describe("POST /file/upload (sandbox: bytes kept under the store folder)", () => {
  let s: Session;
  beforeAll(async () => {
    s = await session();
  });
  afterAll(() => s.app.close());

  it("accepts every type: pdf, txt, md, csv, json, docx → 201 {data: {id, name, mime_type, size_bytes, created_at}}", async () => {
    for (const sample of SAMPLES) {
      const response = await upload(s, [{ filename: sample.filename, contentType: sample.contentType, content: sample.content }]);
      expect(response.statusCode, `${sample.filename}: ${response.body}`).toBe(201);
      const { data } = response.json() as { data: KnowledgeBaseFile };
      const bytes = Buffer.isBuffer(sample.content) ? sample.content : Buffer.from(sample.content);
      expect(data).toEqual({ id: expect.any(String), name: sample.filename, mime_type: sample.mime, size_bytes: bytes.length, created_at: expect.any(String) });
      expect(new Date(data.created_at).toISOString()).toBe(data.created_at);
      const row = await orgScope(database.db, s.orgId).first(knowledgeBaseFiles, eq(knowledgeBaseFiles.id, data.id));
      expect(row).toMatchObject({ storageKey: `${s.orgId}/${data.id}`, providerFileId: null });
      expect(readFileSync(join(fileStores.get(s.config)!.root, row!.storageKey!)).equals(bytes)).toBe(true);
    }
  });

  it("the bytes go to a temporary folder for an in-memory database, DATA_DIR/files otherwise — never into the project", () => {
    const root = fileStores.get(s.config)!.root;
    if (database.inMemory) expect(root.startsWith(resolve(s.config.dataDir))).toBe(false);
    else expect(root).toBe(resolve(s.config.dataDir, "files"));
    expect(root.startsWith(resolve(".data"))).toBe(false);
  });

  it("refuses other types, naming the accepted ones, and writes nothing", async () => {
    const before = { rows: await rowCount(s.orgId), files: storedFiles(s).length };
    const cases: [Part, RegExp][] = [
      [{ filename: "setup.exe", contentType: "application/octet-stream", content: "MZ" }, /^Only PDF, TXT, MD, CSV, JSON and DOCX files can be uploaded \("setup.exe" is not one of them\)\.$/],
      [{ filename: "photo.png", contentType: "image/png", content: "\x89PNG" }, /Only PDF, TXT, MD, CSV, JSON and DOCX files/],
      [{ filename: "README", contentType: "text/plain", content: "no extension" }, /Only PDF, TXT, MD, CSV, JSON and DOCX files/],
      // The extension is right but the label is not.
      [{ filename: "notes.txt", contentType: "image/png", content: "hello" }, /^"notes.txt" was sent as image\/png, which is not a \.txt file\. Only PDF, TXT, MD, CSV, JSON and DOCX/],
      // The label is right but the bytes are not.
      [{ filename: "fake.pdf", contentType: "application/pdf", content: "just text" }, /^"fake.pdf" is not a PDF file/],
      [{ filename: "fake.docx", contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", content: PDF }, /^"fake.docx" is not a Word \(\.docx\) document/],
      [{ filename: "binary.txt", contentType: "text/plain", content: Buffer.from([0xff, 0xfe, 0x00, 0x41]) }, /^"binary.txt" is not a UTF-8 text file\.$/],
      [{ filename: "broken.json", contentType: "application/json", content: "{items:" }, /^"broken.json" is not valid JSON\.$/],
    ];
    for (const [part, detail] of cases) {
      const response = await upload(s, [part]);
      expect(response.statusCode, `${part.filename}: ${response.body}`).toBe(400);
      expect(response.json()).toMatchObject({ code: "bad_request", detail: expect.stringMatching(detail) });
    }
    expect({ rows: await rowCount(s.orgId), files: storedFiles(s).length }).toEqual(before);
  });

  it("a missing or empty file, a wrong field, two files or a non-multipart body → 400", async () => {
    const before = await rowCount(s.orgId);
    const noFile = await upload(s, [{ field: "note", content: "just a field" }]);
    expect(noFile.statusCode).toBe(400);
    expect(noFile.json()).toMatchObject({ code: "bad_request", detail: expect.stringContaining('in a field named "file"') });

    const empty = await upload(s, [{ filename: "empty.txt", contentType: "text/plain", content: "" }]);
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ detail: '"empty.txt" is empty: choose a file with content.' });

    const wrongField = await upload(s, [{ field: "document", filename: "a.txt", contentType: "text/plain", content: "x" }]);
    expect(wrongField.statusCode).toBe(400);
    expect(wrongField.json()).toMatchObject({ detail: 'The file must be sent in the field "file", not "document".' });

    const two = await upload(s, [
      { filename: "a.txt", contentType: "text/plain", content: "a" },
      { filename: "b.txt", contentType: "text/plain", content: "b" },
    ]);
    expect(two.statusCode).toBe(400);
    expect(two.json()).toMatchObject({ detail: expect.stringContaining("one file per upload") });

    const json = await s.app.inject({ method: "POST", url: "/api/file/upload", headers: s.headers, payload: { file: "nope" } });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ code: "bad_request", detail: expect.stringContaining("multipart/form-data") });

    const nothing = await s.app.inject({ method: "POST", url: "/api/file/upload", headers: s.headers });
    expect(nothing.statusCode).toBe(400);
    expect(await rowCount(s.orgId)).toBe(before);
  });

  it("file names: paths and control characters stripped, at most 200 characters with the extension kept", async () => {
    const response = await upload(s, [{ filename: "C:\\Users\\me\\Q3\u0007 report\u202e.txt", contentType: "text/plain", content: "x" }]);
    expect(response.statusCode, response.body).toBe(201);
    expect((response.json() as { data: KnowledgeBaseFile }).data.name).toBe("Q3 report.txt");
    const unix = await upload(s, [{ filename: "../../etc/passwd.md", contentType: "text/markdown", content: "# x" }]);
    expect((unix.json() as { data: KnowledgeBaseFile }).data.name).toBe("passwd.md");
    expect(sanitizeFileName(`${"a".repeat(300)}.pdf`)).toBe(`${"a".repeat(196)}.pdf`);
    expect(sanitizeFileName("..\u0000..")).toBe("");
  });

  it("needs a bearer token", async () => {
    const body = multipart([{ filename: "a.txt", contentType: "text/plain", content: "x" }]);
    const response = await s.app.inject({ method: "POST", url: "/api/file/upload", headers: body.headers, payload: body.payload });
    expect(response.statusCode).toBe(401);
  });
});

describe("size limit (FILE_MAX_BYTES)", () => {
  it("is read like the other variables: a bad value names it, the rule and the value", () => {
    expect(loadConfig({}).fileMaxBytes).toBe(10_485_760);
    expect(loadConfig({ FILE_MAX_BYTES: " 2048 " }).fileMaxBytes).toBe(2048);
    expect(() => loadConfig({ FILE_MAX_BYTES: "10MB" })).toThrow(new ConfigError('FILE_MAX_BYTES must be an integer from 1 to 104857600 (got "10MB")'));
    expect(() => loadConfig({ FILE_MAX_BYTES: "0" })).toThrow(ConfigError);
    expect(formatByteLimit(1536)).toBe("1.5 KB");
    expect(formatByteLimit(500)).toBe("500 bytes");
  });

  it("the default is 10 MB: one byte more → 413 'The file is larger than the 10 MB limit.'", async () => {
    expect(formatByteLimit(10 * 1024 * 1024)).toBe("10 MB");
    const s = await session();
    try {
      expect(s.config.fileMaxBytes).toBe(10_485_760);
      const response = await upload(s, [{ filename: "big.txt", contentType: "text/plain", content: Buffer.alloc(10_485_761, 0x61) }]);
      expect(response.statusCode).toBe(413);
      expect(response.json()).toEqual({ detail: "The file is larger than the 10 MB limit.", code: "payload_too_large" });
      expect(await rowCount(s.orgId)).toBe(0);
      expect(storedFiles(s)).toEqual([]);
    } finally {
      await s.app.close();
    }
  });

  it("a small override: over it → 413 naming it, exactly at it → 201", async () => {
    const s = await session({ FILE_MAX_BYTES: "1024" });
    try {
      const over = await upload(s, [{ filename: "big.csv", contentType: "text/csv", content: Buffer.alloc(1025, 0x61) }]);
      expect(over.statusCode).toBe(413);
      expect(over.json()).toEqual({ detail: "The file is larger than the 1 KB limit.", code: "payload_too_large" });
      expect(await rowCount(s.orgId)).toBe(0);
      expect(storedFiles(s)).toEqual([]);
      const exact = await upload(s, [{ filename: "ok.csv", contentType: "text/csv", content: Buffer.alloc(1024, 0x61) }]);
      expect(exact.statusCode, exact.body).toBe(201);
    } finally {
      await s.app.close();
    }
  });
});

describe("GET /file/files and DELETE /file/file/{id}", () => {
  let a: Session;
  let b: Session;
  const ids: string[] = [];
  let bFile: string;

  beforeAll(async () => {
    a = await session();
    // Another organisation on the same server and database.
    const { token } = await signUp(a.app);
    b = { app: a.app, config: a.config, headers: bearer(token), orgId: await createOrganisation(a.app, token) };
    for (const name of ["first.txt", "second.txt", "third.txt"]) {
      const response = await upload(a, [{ filename: name, contentType: "text/plain", content: name }]);
      ids.push((response.json() as { data: KnowledgeBaseFile }).data.id);
    }
    bFile = ((await upload(b, [{ filename: "theirs.txt", contentType: "text/plain", content: "b" }])).json() as { data: KnowledgeBaseFile }).data.id;
  });
  afterAll(() => a.app.close());

  it("lists the organisation's files only, newest first, with paging", async () => {
    const response = await list(a);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { data: KnowledgeBaseFile[]; total: number; page: number; limit: number };
    expect(body).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect(body.data.map((file) => file.name)).toEqual(["third.txt", "second.txt", "first.txt"]);
    const page2 = (await list(a, "?page=2&limit=2")).json() as { data: KnowledgeBaseFile[]; total: number; page: number; limit: number };
    expect(page2).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(page2.data.map((file) => file.name)).toEqual(["first.txt"]);
    const theirs = (await list(b)).json() as { data: KnowledgeBaseFile[]; total: number };
    expect(theirs.data.map((file) => file.id)).toEqual([bFile]);
    expect((await list(a, "?limit=500")).statusCode).toBe(400);
  });

  it("refuses (409) to delete a file an agent of the organisation uses, naming the agents", async () => {
    const scope = orgScope(database.db, a.orgId);
    const used = ids[0]!;
    const agentIds = [randomUUID(), randomUUID()];
    await scope.insert(agents, { id: agentIds[0]!, name: "Bravo desk", config: { ...DEFAULT_AGENT_CONFIG, agent_name: "Bravo desk", knowledge_base_files: [used] } });
    await scope.insert(agents, { id: agentIds[1]!, name: "Alpha line", config: { ...DEFAULT_AGENT_CONFIG, agent_name: "Alpha line", knowledge_base_files: [ids[1]!, used] } });
    // Another organisation's agent naming the id does not count.
    await orgScope(database.db, b.orgId).insert(agents, { id: randomUUID(), name: "Not ours", config: { ...DEFAULT_AGENT_CONFIG, knowledge_base_files: [ids[2]!] } });

    const refused = await remove(a, used);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ detail: "This file is used by agent(s) Alpha line, Bravo desk: remove it from them first.", code: "conflict" });
    expect((await list(a)).json()).toMatchObject({ total: 3 });

    // Freed from both agents, it deletes.
    await scope.update(agents, { config: { ...DEFAULT_AGENT_CONFIG, knowledge_base_files: [] } }, eq(agents.id, agentIds[0]!));
    await scope.update(agents, { config: { ...DEFAULT_AGENT_CONFIG, knowledge_base_files: [ids[1]!] } }, eq(agents.id, agentIds[1]!));
    const row = await scope.first(knowledgeBaseFiles, eq(knowledgeBaseFiles.id, used));
    const path = join(fileStores.get(a.config)!.root, row!.storageKey!);
    expect(existsSync(path)).toBe(true);
    const deleted = await remove(a, used);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ data: { id: used } });
    expect(existsSync(path)).toBe(false);
    expect(await scope.first(knowledgeBaseFiles, eq(knowledgeBaseFiles.id, used))).toBeNull();
    expect(((await list(a)).json() as { total: number }).total).toBe(2);

    // Used by another organisation's agent only: deletes.
    expect((await remove(a, ids[2]!)).statusCode).toBe(200);
    expect((await remove(a, ids[1]!)).statusCode).toBe(409);
  });

  it("another organisation's file, an unknown id → 404; a malformed id → 400", async () => {
    const theirs = await remove(a, bFile);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toEqual({ detail: "File not found.", code: "not_found" });
    expect(((await list(b)).json() as { total: number }).total).toBe(1);
    expect((await remove(a, randomUUID())).statusCode).toBe(404);
    const malformed = await remove(a, "not-a-uuid");
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ detail: expect.stringContaining("the file id must be a UUID") });
  });
});

describe("Vapi mode: files go to Vapi", () => {
  let s: Session;
  beforeAll(async () => {
    s = await session({ VAPI_PRIVATE_KEY: FAKE_VAPI_KEY, VAPI_API_URL: fake.url });
  });
  afterAll(() => s.app.close());

  it("uploads the bytes to Vapi (POST /file), stores Vapi's id and no bytes; delete removes it at Vapi", async () => {
    fake.reset();
    const response = await upload(s, [{ filename: "pricing.pdf", contentType: "application/pdf", content: PDF }]);
    expect(response.statusCode, response.body).toBe(201);
    const { data } = response.json() as { data: KnowledgeBaseFile };
    expect(data).toMatchObject({ name: "pricing.pdf", mime_type: "application/pdf", size_bytes: PDF.length });
    const request = fake.requests.find((candidate) => candidate.method === "POST" && candidate.path === "/file")!;
    expect(request.headers.authorization).toBe(`Bearer ${FAKE_VAPI_KEY}`);
    expect(request.form!.files).toHaveLength(1);
    expect(request.form!.files[0]).toMatchObject({ field: "file", filename: "pricing.pdf", contentType: "application/pdf" });
    expect(request.form!.files[0]!.bytes.equals(PDF)).toBe(true);
    const row = await orgScope(database.db, s.orgId).first(knowledgeBaseFiles, eq(knowledgeBaseFiles.id, data.id));
    expect(row!.storageKey).toBeNull();
    expect(row!.providerFileId).toBeTruthy();
    expect(fake.files.has(row!.providerFileId!)).toBe(true);
    expect(storedFiles(s)).toEqual([]);

    const deleted = await remove(s, data.id);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(fake.requests.some((candidate) => candidate.method === "DELETE" && candidate.path === `/file/${row!.providerFileId}`)).toBe(true);
    expect(fake.files.has(row!.providerFileId!)).toBe(false);
  });

  it("Vapi refusing the upload → 502 with its message, and nothing is stored", async () => {
    const before = await rowCount(s.orgId);
    fake.fail({ status: 400, message: "File type not supported", match: "POST /file" });
    const response = await upload(s, [{ filename: "notes.txt", contentType: "text/plain", content: "hello" }]);
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({ detail: "Vapi could not upload the file (HTTP 400): File type not supported", code: "upstream_error" });
    expect(await rowCount(s.orgId)).toBe(before);
  });

  it("Vapi failing to delete → 502 and the file stays", async () => {
    const { data } = (await upload(s, [{ filename: "keep.txt", contentType: "text/plain", content: "keep" }])).json() as { data: KnowledgeBaseFile };
    fake.fail({ status: 500, message: "boom", match: "DELETE /file" });
    const response = await remove(s, data.id);
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ code: "upstream_error", detail: expect.stringContaining("Vapi answered 500") });
    expect(((await list(s)).json() as { data: KnowledgeBaseFile[] }).data.map((file) => file.id)).toContain(data.id);
  });
});
