// `npm start`: one process on PORT — builds the console (production, whatever NODE_ENV the shell has) when
// its build is missing, stale or not a production build, then starts the API server, which also serves it.
import { ensureConsoleBuilt } from "./console-build";

try {
  ensureConsoleBuilt();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const { main } = await import("../server/index");
await main();
