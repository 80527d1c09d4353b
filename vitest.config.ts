import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// Two projects: the console (jsdom + Testing Library) and the server (node, Fastify inject, PGlite in memory).
export default defineConfig({
  test: {
    // Vitest's default is one worker less than the cores: a single worker on a 2-core machine, where the
    // main process mostly waits. Two workers there took `npm test` from 757 s to 492 s in CI.
    maxWorkers: Math.max(2, availableParallelism() - 1),
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
          // A long form test (the agent editor's) needed over 20 s with two workers on a 2-core machine.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: "server",
          environment: "node",
          include: ["tests/server/**/*.test.ts"],
          testTimeout: 60_000, // the dialler and start-up tests take 20–25 s alone on 2 cores; under CI load 30 s was too close
          hookTimeout: 60_000,
        },
      },
      {
        // The security suite, generated from the server's own route table (each file's header says what it
        // covers): 401, cross-organisation 404, member 403, webhooks, fast-check fuzzing, headers and CORS.
        // global-setup.ts prints the one summary line (routes × case kinds = cases tried).
        test: {
          name: "security",
          environment: "node",
          include: ["tests/security/**/*.test.ts"],
          globalSetup: ["tests/security/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
