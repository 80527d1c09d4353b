import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { defineConfig, minifySync, type Plugin } from "vite";
import react from "@vitejs/plugin-react";

const OUT_DIR = "dist/console";

/**
 * Plain scripts of public/ the page loads before the app (public/load-check.js): Vite copies public/ as it
 * is, so the readable, commented source would ship. Minified in the output (1.8 → 0.9 KB gzip, on every page).
 */
const PUBLIC_SCRIPTS = ["load-check.js"];

/**
 * Minifies PUBLIC_SCRIPTS in the output, then writes .br and .gz beside every text asset once, at build
 * time, so the server sends compressed files without compressing per request (@fastify/static
 * `preCompressed`). One hook, in that order: closeBundle hooks of several plugins run side by side.
 */
function precompress(): Plugin {
  return {
    name: "precompress",
    apply: "build",
    closeBundle() {
      for (const name of PUBLIC_SCRIPTS) {
        const file = join(OUT_DIR, name);
        const { code, errors } = minifySync(name, readFileSync(file, "utf8"));
        if (errors.length > 0) throw new Error(`${file} could not be minified: ${errors.map((error) => error.message).join("; ")}`);
        writeFileSync(file, code);
      }
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const path = join(dir, name);
          return statSync(path).isDirectory() ? walk(path) : [path];
        });
      for (const file of walk(OUT_DIR)) {
        if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
        const bytes = readFileSync(file);
        if (bytes.length < 1024) continue;
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

// The console is built once and served by the API server (one process, one port).
// In `npm run dev` Vite serves it with hot reload and proxies /api to the API server.
export default defineConfig({
  plugins: [react(), precompress()],
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    port: Number(process.env.VITE_PORT ?? 5173),
    proxy: {
      "/api": `http://127.0.0.1:${process.env.PORT ?? 3000}`,
    },
  },
});
