/**
 * Vapi's dynamic variables, rendered as Vapi renders them: with LiquidJS, so that what the sandbox says
 * (transcripts of phone and web calls) and what the web-call page shows is what Vapi would say. Every
 * place that shows or speaks an agent's message with a call's variables renders it here.
 *
 * Semantics (https://docs.vapi.ai/assistants/dynamic-variables):
 * - The call's `assistantOverrides.variableValues` (a contact's name and CSV columns, a link's recipient…).
 * - Vapi's default variables, in UTC: `{{now}}` ("Jan 1, 2024 12:00 PM"), `{{date}}` ("Jan 1, 2024"),
 *   `{{time}}` ("12:00 PM"), `{{month}}` ("January"), `{{day}}` ("1"), `{{year}}` ("2024"), and
 *   `{{customer.number}}` / `{{customer.X}}` (the call's customer). `{{phoneNumber.number}}` too, which
 *   Vapi's API names for transfers. A call's own variable of the same name wins over a default: the member
 *   wrote it on purpose (a CSV column `date`).
 * - `"now" | date: "%H:%M", "Europe/London"` formats the call's clock; without a zone, in UTC.
 * - An unknown variable renders empty, Liquid's default (strictVariables off): Vapi's docs say nothing
 *   either way and use LiquidJS, whose default this is; `{{ name | default: "there" }}` is how a message
 *   says what to say instead. An unknown filter is skipped (strictFilters off), likewise.
 * - A template Liquid cannot parse or render (`{{ name`, `{% if %}`, over a limit) is shown as written:
 *   never an error for the caller, and the raw text tells the member what to fix.
 *
 * Safety: the engine reads no file (`include`, `render` and `layout` are refused at parse, and its
 * template store is an empty in-memory map), sees only own properties, and is bounded: at most
 * PARSE_LIMIT characters, RENDER_LIMIT_MS of rendering and MEMORY_LIMIT of allocations per message (a
 * template over a limit is shown as written, and is not rendered again by this process).
 */
import { Liquid, type FilterImplOptions, type Template } from "liquidjs";

/** Characters of template parsed per render (agent messages are at most 1,000; prompts more). */
const PARSE_LIMIT = 100_000;
/**
 * Milliseconds one render may take: a loop in a message cannot hold the server for longer. Generous,
 * because a first date in a time zone loads the zone data (about 0.1 s on a busy machine).
 */
const RENDER_LIMIT_MS = 1_000;
/** Liquid's allocation units per render (string building, ranges, joins). */
const MEMORY_LIMIT = 1_000_000;

/** The call a message is rendered for: its clock and the parties Vapi exposes as variables. */
export interface CallVariableContext {
  /** Epoch ms of the call (its placing or start); now when absent. */
  now?: number;
  customer?: { number?: string | null; name?: string | null } | null;
  phoneNumber?: { number?: string | null } | null;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "12:00 PM": written out, not Intl, whose ICU puts a narrow no-break space before PM on some Node versions. */
function clockTime(at: Date): string {
  const hours = at.getUTCHours();
  return `${hours % 12 || 12}:${String(at.getUTCMinutes()).padStart(2, "0")} ${hours < 12 ? "AM" : "PM"}`;
}

/** Vapi's default variables for a call at `context.now` (UTC), and its customer and phone number. */
export function vapiDefaultVariables(context: CallVariableContext = {}): Record<string, unknown> {
  const at = new Date(context.now ?? Date.now());
  const month = MONTHS[at.getUTCMonth()]!;
  const date = `${month.slice(0, 3)} ${at.getUTCDate()}, ${at.getUTCFullYear()}`;
  const time = clockTime(at);
  const customer = Object.fromEntries(Object.entries(context.customer ?? {}).filter(([, value]) => typeof value === "string" && value !== ""));
  const phoneNumber = context.phoneNumber?.number ? { number: context.phoneNumber.number } : {};
  return { now: `${date} ${time}`, date, time, month, day: String(at.getUTCDate()), year: String(at.getUTCFullYear()), customer, phoneNumber };
}

/** The clock of the render under way: `"now"` in a date filter is the call's time, so a replayed sandbox script says the same. */
let renderClock: { at: Date; nowText: string } | null = null;

const refused: Parameters<Liquid["registerTag"]>[1] = {
  parse() {
    throw new Error("templates cannot include other files");
  },
  render() {
    return "";
  },
};

function createEngine(): Liquid {
  const engine = new Liquid({
    // No file system: lookups go to this empty map, and the tags that would look anything up are refused below.
    templates: {},
    ownPropertyOnly: true,
    strictVariables: false,
    strictFilters: false,
    timezoneOffset: 0,
    locale: "en-US",
    parseLimit: PARSE_LIMIT,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
  });
  for (const tag of ["include", "render", "layout"]) engine.registerTag(tag, refused);
  // The date filters read "now" (and Vapi's {{now}}) as the call's clock rather than the machine's.
  for (const name of ["date", "date_to_xmlschema", "date_to_rfc822", "date_to_string", "date_to_long_string"]) {
    const original = engine.filters[name];
    if (!original) continue;
    const handler = typeof original === "function" ? original : original.handler;
    const wrapped: FilterImplOptions = function (this: ThisParameterType<typeof handler>, value: unknown, ...args: unknown[]) {
      const clock = renderClock;
      const isNow = clock && (value === "now" || value === "today" || value === clock.nowText);
      return handler.call(this, isNow ? clock.at : value, ...args);
    };
    engine.registerFilter(name, wrapped);
  }
  return engine;
}

const engine = createEngine();

/** Parsed templates by text: the same few agent messages are rendered for every call (parsing is most of the cost). */
const parsedTemplates = new Map<string, Template[]>();
const PARSED_REMEMBERED = 500;
function parsed(text: string): Template[] {
  let templates = parsedTemplates.get(text);
  if (!templates) {
    templates = engine.parse(text);
    if (parsedTemplates.size >= PARSED_REMEMBERED) parsedTemplates.delete(parsedTemplates.keys().next().value!);
    parsedTemplates.set(text, templates);
  }
  return templates;
}

/**
 * Templates that ran over a limit, shown as written from then on without rendering again: a loop in an
 * agent's welcome message costs the public web-call page one bounded render per process, not one per visit.
 */
const overLimit = new Set<string>();
const OVER_LIMIT_REMEMBERED = 500;
function rememberOverLimit(text: string): void {
  if (overLimit.size >= OVER_LIMIT_REMEMBERED) overLimit.clear();
  overLimit.add(text);
}

/**
 * `text` with the call's variables filled in as Vapi would (see the file comment); the text as written
 * when Liquid cannot parse or render it.
 */
export function renderVariables(text: string, values: Record<string, string>, context: CallVariableContext = {}): string {
  if (!text.includes("{") || overLimit.has(text)) return text;
  const defaults = vapiDefaultVariables(context);
  const previous = renderClock;
  renderClock = { at: new Date(context.now ?? Date.now()), nowText: String(defaults.now) };
  try {
    const rendered: unknown = engine.renderSync(parsed(text), { ...defaults, ...values });
    return typeof rendered === "string" ? rendered : String(rendered);
  } catch (error) {
    if (error instanceof Error && /limit exceeded/.test(error.message)) rememberOverLimit(text);
    return text;
  } finally {
    renderClock = previous;
  }
}
