import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// Two projects: the console (jsdom + Testing Library) and the server (node, Fastify inject, PGlite in memory).
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [react()],
        test: {
          name: "console",
          environment: "jsdom",
          include: ["tests/console/**/*.test.{ts,tsx}"],
          setupFiles: ["tests/console/setup.ts"],
          // Refine must be inlined, or two react-router copies break useLocation.
          server: { deps: { inline: [/@refinedev\//] } },
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "server",
          environment: "node",
          include: ["tests/server/**/*.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
