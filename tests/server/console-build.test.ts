// `npm start` serves a production build of the console, whatever the shell's NODE_ENV: the build is always
// made in production mode, and a build made in another mode or from other inputs counts as stale.
// Vite itself is replaced by a recorder, on a scratch copy of the inputs (src, contract, index.html, ...).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BUILD_MODE,
  STAMP_FILE,
  buildConsole,
  consoleBuildState,
  ensureConsoleBuilt,
  type ConsoleBuildOptions,
} from "../../scripts/console-build";

interface SpawnCall {
  args: string[];
  env: NodeJS.ProcessEnv;
}

let root: string;
let calls: SpawnCall[];

/** A stand-in for `vite build`: records how it was started and writes an index.html, as Vite would. */
function fakeVite(status = 0) {
  return (_command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string | URL }) => {
    calls.push({ args, env: { ...options.env } });
    if (status === 0) {
      // Vite's emptyOutDir: the previous build (and its stamp) goes first.
      rmSync(join(root, "dist", "console"), { recursive: true, force: true });
      mkdirSync(join(root, "dist", "console"), { recursive: true });
      writeFileSync(join(root, "dist", "console", "index.html"), "<!doctype html>");
    } else {
      rmSync(join(root, "dist", "console", STAMP_FILE), { force: true });
    }
    return { status, error: undefined };
  };
}

function write(path: string, text: string) {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

const stampPath = () => join(root, "dist", "console", STAMP_FILE);
const options = (env: NodeJS.ProcessEnv = {}, status = 0): ConsoleBuildOptions => ({ root, env, spawn: fakeVite(status) });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "vap-console-build-"));
  calls = [];
  write("src/main.tsx", "console.log('hello');\n");
  write("src/styles.css", "body { margin: 0 }\n");
  write("contract/agent.ts", "export const x = 1;\n");
  write("index.html", "<div id=root></div>\n");
  write("vite.config.ts", "export default {};\n");
  write("package.json", "{}\n");
  write("package-lock.json", "{}\n");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the console build npm start serves", () => {
  it("is built with NODE_ENV=production and --mode production even when the shell says development", () => {
    ensureConsoleBuilt(() => undefined, options({ NODE_ENV: "development", PATH: "/usr/bin" }));
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.env.NODE_ENV).toBe("production");
    expect(call!.env.PATH).toBe("/usr/bin");
    expect(call!.args).toContain("build");
    expect(call!.args.slice(call!.args.indexOf("--mode"), call!.args.indexOf("--mode") + 2)).toEqual(["--mode", "production"]);
    expect(JSON.parse(readFileSync(stampPath(), "utf8"))).toMatchObject({ mode: BUILD_MODE, nodeEnv: "production" });
    expect(consoleBuildState(options({ NODE_ENV: "development" }))).toBe("fresh");

    // Started again from a test runner's or a production shell: still fresh, nothing rebuilt.
    ensureConsoleBuilt(() => undefined, options({ NODE_ENV: "test" }));
    ensureConsoleBuilt(() => undefined, options({ NODE_ENV: "production" }));
    expect(calls).toHaveLength(1);
  });

  it("takes a build stamped development (or any mode but production) as stale, and rebuilds it", () => {
    buildConsole(options());
    const stamp = JSON.parse(readFileSync(stampPath(), "utf8"));
    writeFileSync(stampPath(), JSON.stringify({ ...stamp, mode: "development", nodeEnv: "development" }));
    expect(consoleBuildState(options())).toBe("stale");
    writeFileSync(stampPath(), JSON.stringify({ ...stamp, nodeEnv: "development" }));
    expect(consoleBuildState(options())).toBe("stale");

    const lines: string[] = [];
    ensureConsoleBuilt((line) => lines.push(line), options());
    expect(calls).toHaveLength(2);
    expect(lines[0]).toMatch(/rebuilding/);
    expect(consoleBuildState(options())).toBe("fresh");
  });

  it("takes a build with no stamp (e.g. `npx vite build` by hand, or with NODE_ENV=development) as stale", () => {
    mkdirSync(join(root, "dist", "console"), { recursive: true });
    writeFileSync(join(root, "dist", "console", "index.html"), "<!doctype html>");
    // Newer than every input: the old mtime-only check called this fresh.
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, "dist", "console", "index.html"), future, future);
    expect(consoleBuildState(options())).toBe("stale");
  });

  it("takes a build from other inputs as stale: an edited, added or removed file, even with an old mtime", () => {
    buildConsole(options());
    expect(consoleBuildState(options())).toBe("fresh");

    // Same size, mtime set back to before the build (as a checkout or a copy keeping times can do).
    write("src/main.tsx", "console.log('HELLO');\n");
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(root, "src/main.tsx"), past, past);
    expect(consoleBuildState(options())).toBe("stale");
    buildConsole(options());
    expect(consoleBuildState(options())).toBe("fresh");

    write("public/flags/us.svg", "<svg/>");
    expect(consoleBuildState(options())).toBe("stale");
    buildConsole(options());

    rmSync(join(root, "src/styles.css"));
    expect(consoleBuildState(options())).toBe("stale");
    buildConsole(options());

    write("package-lock.json", '{"lockfileVersion":3}\n');
    expect(consoleBuildState(options())).toBe("stale");
  });

  it("takes a build made with other VITE_* values (baked into the bundle) as stale; other variables do not matter", () => {
    buildConsole(options({ VITE_API_URL: "https://api.example.com", DATABASE_URL: "postgres://a" }));
    expect(consoleBuildState(options({ VITE_API_URL: "https://api.example.com", DATABASE_URL: "postgres://b" }))).toBe("fresh");
    expect(consoleBuildState(options({ VITE_API_URL: "https://other.example.com" }))).toBe("stale");
    expect(consoleBuildState(options({}))).toBe("stale");

    // Vite reads .env files as well (mode production); the environment wins over them.
    write(".env.production", "VITE_API_URL=https://api.example.com\n");
    expect(consoleBuildState(options({}))).toBe("fresh");
    write(".env", "VITE_CLERK_PUBLISHABLE_KEY=pk_test_x\n");
    expect(consoleBuildState(options({ VITE_API_URL: "https://api.example.com" }))).toBe("stale");
  });

  it("a failed build leaves no stamp, so the next start builds again; the error names the exit status", () => {
    buildConsole(options());
    write("src/main.tsx", "console.log('changed');\n");
    expect(() => ensureConsoleBuilt(() => undefined, options({}, 1))).toThrow(/vite exited with 1/);
    expect(consoleBuildState(options())).toBe("stale");
  });
});
