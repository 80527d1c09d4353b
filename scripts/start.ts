// `npm start`: one process on PORT — builds the console when its build is missing or stale,
// then starts the API server, which also serves the console.
import { ensureConsoleBuilt } from "./console-build";

try {
  ensureConsoleBuilt();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const { main } = await import("../server/index");
await main();
