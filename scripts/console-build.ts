// The console's production build, shared by `npm start`, `npm run build` and the browser tests.
// A build counts as fresh only when its stamp (dist/console/.build-stamp.json) says it was made in
// production mode from exactly the inputs there are now: the shell's NODE_ENV never changes what is built.
import { spawnSync, type SpawnSyncOptions, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { parseEnv } from "node:util";

const projectRoot = resolve(import.meta.dirname, "..");
export const consoleDir = join(projectRoot, "dist", "console");

/** What the console build is made from: a change to any of these makes the build stale. */
export const BUILD_INPUTS = [
  "src",
  "contract",
  "public",
  "index.html",
  "vite.config.ts",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
] as const;
/** Vite reads VITE_* values from these files (mode production) as well as from the environment. */
const ENV_FILES = [".env", ".env.local", ".env.production", ".env.production.local"] as const;
export const STAMP_FILE = ".build-stamp.json";
/** The only mode `npm start` serves: production React (no StrictMode double effects, no dev warnings). */
export const BUILD_MODE = "production";

export interface BuildStamp {
  mode: string;
  nodeEnv: string;
  inputs: string;
}

type Spawn = (command: string, args: string[], options: SpawnSyncOptions) => Pick<SpawnSyncReturns<Buffer>, "status" | "error">;

export interface ConsoleBuildOptions {
  /** The project folder (tests use a scratch copy). */
  root?: string;
  /** The environment the build is started from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** How Vite is started (tests replace it). */
  spawn?: Spawn;
}

function listFiles(root: string, path: string): string[] {
  const absolute = join(root, path);
  if (!existsSync(absolute)) return [];
  if (!statSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute)
    .sort()
    .flatMap((entry) => listFiles(root, join(path, entry)));
}

/** The VITE_* values Vite would bake into a production build: from the .env files, the environment winning. */
function viteEnv(root: string, env: NodeJS.ProcessEnv): [string, string][] {
  const values: Record<string, string> = {};
  for (const file of ENV_FILES) {
    const path = join(root, file);
    if (existsSync(path)) Object.assign(values, parseEnv(readFileSync(path, "utf8")));
  }
  for (const [key, value] of Object.entries(env)) if (value !== undefined) values[key] = value;
  return Object.entries(values)
    .filter(([key]) => key.startsWith("VITE_"))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A hash of every input's path and content and of the VITE_* values (about 400 files, a few milliseconds). */
export function consoleInputsHash({ root = projectRoot, env = process.env }: ConsoleBuildOptions = {}): string {
  const hash = createHash("sha256");
  for (const input of BUILD_INPUTS) {
    for (const file of listFiles(root, input)) {
      const content = readFileSync(join(root, file));
      hash.update(`${relative(root, join(root, file)).split(sep).join("/")}\0${content.length}\0`);
      hash.update(content);
    }
  }
  hash.update(JSON.stringify(viteEnv(root, env)));
  return hash.digest("hex");
}

function readStamp(dir: string): BuildStamp | null {
  try {
    const stamp = JSON.parse(readFileSync(join(dir, STAMP_FILE), "utf8")) as Partial<BuildStamp>;
    if (typeof stamp.mode !== "string" || typeof stamp.nodeEnv !== "string" || typeof stamp.inputs !== "string") return null;
    return stamp as BuildStamp;
  } catch {
    return null;
  }
}

/**
 * missing: no build; stale: a build with no stamp (made by hand, or a build that failed), one made in another
 * mode or NODE_ENV, or one made from other inputs; fresh: a production build of exactly today's inputs.
 */
export function consoleBuildState(options: ConsoleBuildOptions = {}): "missing" | "stale" | "fresh" {
  const dir = join(options.root ?? projectRoot, "dist", "console");
  if (!existsSync(join(dir, "index.html"))) return "missing";
  const stamp = readStamp(dir);
  if (!stamp || stamp.mode !== BUILD_MODE || stamp.nodeEnv !== "production") return "stale";
  return stamp.inputs === consoleInputsHash(options) ? "fresh" : "stale";
}

/** Builds the console with Vite in production mode, whatever NODE_ENV the shell has, and stamps the build. */
export function buildConsole(options: ConsoleBuildOptions = {}): void {
  const root = options.root ?? projectRoot;
  const env = options.env ?? process.env;
  const spawn: Spawn = options.spawn ?? spawnSync;
  // Hashed before the build starts: an edit made while Vite runs leaves the build stale, never falsely fresh.
  const inputs = consoleInputsHash({ root, env });
  const vite = join(root, "node_modules", "vite", "bin", "vite.js");
  const result = spawn(process.execPath, [vite, "build", "--mode", BUILD_MODE, "--logLevel", "warn"], {
    cwd: root,
    stdio: "inherit",
    env: { ...env, NODE_ENV: "production" },
  });
  if (result.error) throw new Error(`The console build could not start: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`The console build failed (vite exited with ${result.status}).`);
  const dir = join(root, "dist", "console");
  const stamp: BuildStamp = { mode: BUILD_MODE, nodeEnv: "production", inputs };
  writeFileSync(join(dir, `${STAMP_FILE}.tmp`), `${JSON.stringify(stamp, null, 2)}\n`);
  renameSync(join(dir, `${STAMP_FILE}.tmp`), join(dir, STAMP_FILE));
}

/** Builds the console when its build is missing, stale or not a production build of today's inputs. */
export function ensureConsoleBuilt(log: (line: string) => void = console.log, options: ConsoleBuildOptions = {}): void {
  const state = consoleBuildState(options);
  if (state === "fresh") return;
  log(state === "missing" ? "console: no build yet, building it (once)…" : "console: the build is stale or not a production build, rebuilding…");
  const started = Date.now();
  buildConsole(options);
  log(`console: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// `npm run build`: always builds (production), and stamps the build so that `npm start` serves it as it is.
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  try {
    const started = Date.now();
    buildConsole();
    console.log(`console: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
