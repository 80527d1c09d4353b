import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The console is built once and served by the API server (one process, one port).
// In `npm run dev` Vite serves it with hot reload and proxies /api to the API server.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist/console",
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
