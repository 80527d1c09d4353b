import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// Projects: the console (jsdom + Testing Library), the server (node, Fastify inject, PGlite in memory) and
// the security suite. No project isolates its files from one another (isolate: false): each worker imports the
// heavy packages once instead of once per file. The server's files went from 490 s to 310 s on the 2-core CI
// machine; the console's from 353 s to 165-190 s (npm test 675 s -> 482 s), once tests/console/setup.ts started
// each file as a fresh worker would (vi.resetModules() for src and Refine, an empty document and storage; the
// window patched once). Each file still builds its own app, database or document; state a file leaves in a
// module or in the process must not leak into another's assertions (checked with shuffled file orders:
// `npx vitest run --project console --sequence.shuffle.files --sequence.seed=N`, likewise server).
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
          isolate: false,
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
          isolate: false,
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
          isolate: false,
          include: ["tests/security/**/*.test.ts"],
          globalSetup: ["tests/security/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
