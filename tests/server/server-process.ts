/**
 * Real server processes for the tests that need them (start-up, the dialler across processes): a free
 * port, `server/index.ts` started with a clean environment plus `env`, its output, and waiting for a line.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => ok(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  output: () => string;
  /** The exit code; -1 when a signal ended it. */
  exited: Promise<number | null>;
}

/** Starts `server/index.ts` with only PATH and HOME of this process's environment, and `env`. */
export function startServer(env: Record<string, string>): ServerProcess {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "server/index.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "test", HOST: "127.0.0.1", LOG_LEVEL: "warn", CONSOLE_DIR: "/nonexistent/console", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.once("exit", (code, signal) => done(code ?? (signal ? -1 : null))));
  return { child, output: () => output, exited };
}

export async function waitForOutput(server: ServerProcess, text: string, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!server.output().includes(text)) {
    if (server.child.exitCode !== null) throw new Error(`The server exited (${server.child.exitCode}):\n${server.output()}`);
    if (Date.now() > deadline) throw new Error(`No "${text}" within ${timeoutMs} ms:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
