/**
 * The server as `npm run server` starts it: a real process on a temporary DATA_DIR.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, waitForOutput, type ServerProcess } from "./server-process";


async function stop(server: ServerProcess): Promise<number | null> {
  server.child.kill("SIGTERM");
  return server.exited;
}

describe("npm run server", () => {
  let dataDir: string;
  let port: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "vap-start-"));
    port = await freePort();
    env = { DATA_DIR: dataDir, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("starts, prints what runs where, seeds the demo, keeps sessions across a restart, stops on SIGTERM", async () => {
    const first = startServer(env);
    await waitForOutput(first, "Open ");
    const lines = first.output();
    expect(lines).toContain(`database: PGlite (${dataDir}/pglite)`);
    expect(lines).toContain("auth: local accounts (better-auth)");
    expect(lines).toContain("voice: sandbox (no VAPI_PRIVATE_KEY)");
    expect(lines).toContain("rate limits: in-process");
    expect(lines).toContain("demo sign-in: demo@example.com / demo-password (Demo Organisation)");
    expect(lines).toContain(`Open http://127.0.0.1:${port}`);

    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
    const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ email: "demo@example.com", password: "demo-password" }),
    });
    expect(signIn.status).toBe(200);
    // A browser's sign-in: the session is in the HttpOnly cookie only (no token in the answer).
    expect(await signIn.json()).not.toHaveProperty("token");
    const cookie = signIn.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
    expect(cookie).toContain("session_token=");
    // The generated secret is kept, readable by its owner only.
    expect(statSync(join(dataDir, "auth-secret")).mode & 0o777).toBe(0o600);
    expect(await stop(first)).toBe(0);

    // Same data folder, same secret: the session survives the restart, and the demo is not seeded twice.
    const second = startServer(env);
    await waitForOutput(second, "Open ");
    expect(second.output()).not.toContain("demo sign-in");
    const session = await fetch(`${base}/api/auth/get-session`, { headers: { cookie } });
    expect(((await session.json()) as { user?: { email: string } } | null)?.user?.email).toBe("demo@example.com");
    expect(await stop(second)).toBe(0);
  });

  it("a bad variable stops it with exit code 1 and a message naming it", async () => {
    const server = startServer({ DATA_DIR: dataDir, PORT: "abc" });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('Configuration error: PORT must be an integer from 1 to 65535 (got "abc")');
  });
});
