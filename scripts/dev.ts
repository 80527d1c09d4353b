// `npm run dev`: the API with reload (tsx watch) and the console with hot reload (Vite, proxying /api).
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const apiPort = process.env.PORT ?? "3000";
const vitePort = process.env.VITE_PORT ?? "5173";

const children: ChildProcess[] = [
  spawn(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), "watch", "--clear-screen=false", "server/index.ts"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PORT: apiPort, PUBLIC_URL: process.env.PUBLIC_URL ?? `http://localhost:${vitePort}` },
  }),
  spawn(process.execPath, [join(root, "node_modules/vite/bin/vite.js"), "--port", vitePort, "--strictPort"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PORT: apiPort },
  }),
];
console.log(`dev: console with hot reload on http://localhost:${vitePort} (API on :${apiPort})`);

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
  setTimeout(() => process.exit(code), 3000).unref();
}
for (const child of children) child.on("exit", (code) => stop(code ?? 0));
process.on("SIGINT", () => stop());
process.on("SIGTERM", () => stop());
