// End-to-end harness: the built product on a temporary DATA_DIR (local auth, sandbox voice),
// driven by playwright-core in Debian's Chromium. A failing step leaves a screenshot and the
// page's console log under test-results/.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../scripts/console-build";

const root = resolve(import.meta.dirname, "../..");
export const resultsDir = join(root, "test-results");

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const DEMO = { email: "demo@example.com", password: "demo-password" };

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => ok(port));
    });
  });
}

export interface Product {
  baseURL: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Builds the console if needed and starts the product as `npm start` would, on a fresh data folder. */
export async function startProduct(env: Record<string, string> = {}): Promise<Product> {
  ensureConsoleBuilt();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "vap-e2e-"));
  // A migrated, empty embedded database made once for the suite (scripts/e2e.ts): a copy skips the 5 s of
  // a new PGlite folder's initdb. Without it (a file run by hand with node --test) the product makes its own.
  const template = process.env.E2E_PGLITE_TEMPLATE;
  if (template && existsSync(template)) cpSync(template, join(dataDir, "pglite"), { recursive: true });
  let output = "";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server/index.ts"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "test",
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      CLERK_PUBLISHABLE_KEY: "",
      CLERK_SECRET_KEY: "",
      VAPI_PRIVATE_KEY: "",
      SEED_DEMO: "true",
      LOG_LEVEL: "warn",
      // No plan limits (as testConfig does for the server tests): the browser tests make agents, numbers,
      // invitations and calls in fresh organisations and in the demo one beyond Free's (and the demo's
      // Starter's) limits. A test of the plans passes DEFAULT_PLAN itself.
      DEFAULT_PLAN: "enterprise",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const baseURL = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${baseURL}/api/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`The server did not answer /api/health within 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseURL,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        // The grace timer is cleared once the server has exited, so that it does not keep this process alive.
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (grace = setTimeout(r, 10_000)))]);
        clearTimeout(grace);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not at ${CHROMIUM_PATH}: install it with 'apt-get install -y chromium' (or set CHROMIUM_PATH).`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/**
 * Runs one flow in a fresh browser context (1366×860 unless `viewport` says otherwise); on failure
 * saves a screenshot and the console log.
 */
export async function inPage(
  browser: Browser,
  name: string,
  flow: (page: Page) => Promise<void>,
  { viewport = { width: 1366, height: 860 } }: { viewport?: { width: number; height: number } } = {},
): Promise<void> {
  // Reduced motion, as a person may set it: the console then turns antd's animations off (AntdRoot), so a
  // click is never sent while a dialog is still zooming its buttons into place.
  const context = await browser.newContext({ viewport, reducedMotion: "reduce" });
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on("console", (message) => consoleLines.push(`[${message.type()}] ${message.text()}`));
  page.on("pageerror", (error) => consoleLines.push(`[pageerror] ${error.message}`));
  try {
    await flow(page);
  } catch (error) {
    mkdirSync(resultsDir, { recursive: true });
    const file = name.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
    await page.screenshot({ path: join(resultsDir, `${file}.png`), fullPage: true }).catch(() => undefined);
    writeFileSync(join(resultsDir, `${file}.console.log`), `${page.url()}\n${consoleLines.join("\n")}\n`);
    throw error;
  } finally {
    await context.close();
  }
}

/** The path of an agent's editor, /agent/<uuid> (the uuid captured). */
export const AGENT_PATH = /^\/agent\/([0-9a-f-]{36})$/;

/** Signs the demo in, opens Agents from the sidebar and waits for the editor of the agent it opens. */
export async function openAgentsAsDemo(page: Page, baseURL: string): Promise<void> {
  await signIn(page, baseURL);
  await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
  await page.getByRole("link", { name: "Agents", exact: true }).click();
  await page.waitForURL((url) => AGENT_PATH.test(url.pathname), { timeout: 20_000 });
  await page.getByLabel("Agent name", { exact: true }).waitFor({ timeout: 20_000 });
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/**
 * The API as the demo user, for arranging what a browser flow needs: signs in through better-auth once
 * (on first use, not at file load) and, as the console does, asks GET /api/auth/token with the session
 * cookie for a short-lived bearer, again whenever the one it has is within a minute of expiring.
 */
export function demoApi(baseURL: () => string): <T>(method: string, path: string, body?: unknown) => Promise<ApiAnswer<T>> {
  let cookies: Promise<string> | undefined;
  let current: { token: string; expiresAt: number } | undefined;
  async function signInOnce(): Promise<string> {
    const signInResponse = await fetch(`${baseURL()}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: baseURL() },
      body: JSON.stringify({ email: DEMO.email, password: DEMO.password }),
    });
    if (signInResponse.status !== 200) throw new Error(`demo sign-in: ${signInResponse.status} ${await signInResponse.text()}`);
    return signInResponse.headers.getSetCookie().map((cookie) => cookie.split(";")[0]).join("; ");
  }
  async function bearer(): Promise<string> {
    if (current && current.expiresAt - Date.now() > 60_000) return current.token;
    const minted = await fetch(`${baseURL()}/api/auth/token`, { headers: { Cookie: await (cookies ??= signInOnce()) } });
    if (minted.status !== 200) throw new Error(`GET /api/auth/token: ${minted.status} ${await minted.text()}`);
    const { data } = (await minted.json()) as { data: { token: string; expiresAt: string } };
    current = { token: data.token, expiresAt: Date.parse(data.expiresAt) };
    return data.token;
  }
  return async <T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const response = await fetch(`${baseURL()}/api${path}`, {
      method,
      headers: { Authorization: `Bearer ${await bearer()}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  };
}

/** Signs in through the local sign-in screen, as a person would. */
export async function signIn(page: Page, baseURL: string, email = DEMO.email, password = DEMO.password) {
  await page.goto(`${baseURL}/`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/**
 * The product and a browser for one test file: started before its tests (node:test `before`),
 * stopped after them. Read `e2e.product` and `e2e.browser` inside the tests.
 */
export function productForThisFile(env: Record<string, string> = {}): { readonly product: Product; readonly browser: Browser } {
  const state = {} as { product: Product; browser: Browser };
  before(async () => {
    state.product = await startProduct(env);
    state.browser = await launchBrowser();
  });
  after(async () => {
    await state.browser?.close();
    await state.product?.stop();
  });
  return state;
}

export interface Person {
  name: string;
  email: string;
  password: string;
}

/**
 * Creates a local account from the sign-in screen the page shows ("Create an account"), as a person would:
 * e.g. at `/`, or on a shared agent or invitation link opened signed out. A new person with no
 * organisation then sees "Create your organization".
 */
export async function signUp(page: Page, { name, email, password }: Person) {
  await page.getByRole("button", { name: "Create an account" }).click();
  await page.getByRole("heading", { name: "Create your account" }).waitFor();
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
}

/** Creates the first organisation of a signed-in person who has none ("Create your organization"). */
export async function createFirstOrganization(page: Page, name: string) {
  await page.getByRole("heading", { name: "Create your organization" }).waitFor({ timeout: 20_000 });
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Create organization" }).click();
}
