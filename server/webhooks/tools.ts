/**
 * `tool-calls`: the agent's model asks our server to run a tool. Handlers are registered by the
 * function name the model calls (the campaigns' opt-out tool, the calendar's booking tools); Vapi waits
 * for the answer in its ServerMessageResponseToolCalls shape: `{results: [{toolCallId, name, result | error}]}`.
 * A tool nobody registered, or a handler that throws, answers an `error` the assistant can speak around.
 *
 * Answered once (issue 18): Vapi retries a tool call it got no answer to in time (the same toolCallId
 * within the same provider call). Given a database, each answer is kept in tool_call_answers and a
 * retry gets the first answer again without running anything. The row is claimed before the handler
 * runs, so a duplicate that arrives while the first is still running waits for its answer instead of
 * running beside it (in this process it simply shares the first one's promise; another process polls
 * the row). A claim whose answer never came (its process died) is taken over once it is stale.
 * Only answers are kept: a handler's unexpected failure (a database error) releases the claim, so the
 * retry runs again.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { CallRow } from "../calls/repository";
import type { Db } from "../db/client";
import { toolCallAnswers } from "../db/schema";
import { eventCall, toolCalls, type Json, type ToolCall } from "./vapi-message";

export interface ToolCallContext {
  /** Our call record, when the event names one we know. */
  call: CallRow | null;
  message: Json;
  /** Vapi's id of this tool call: what a handler's writes are made idempotent on. */
  toolCallId: string;
}

/** Answers the tool's result (added to the conversation), or throws an Error whose message is the error. */
export type ToolHandler = (args: Record<string, unknown>, context: ToolCallContext) => Promise<string>;

export type ToolRegistry = ReadonlyMap<string, ToolHandler>;

export interface ToolCallResult {
  toolCallId: string;
  name: string;
  result?: string;
  error?: string;
}

/**
 * An error that is the tool's answer (bad arguments, nothing to cancel): said to the model and kept like
 * a result, so a retry gets the same answer. Any other Error is answered but not kept.
 */
export class ToolCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolCallError";
  }
}

/** What a failure that says nothing useful to the model is answered with. */
export const TOOL_FAILED = "The tool failed on the server. Tell the caller it could not be done just now and offer to try again.";
/** A duplicate still waiting for the first delivery's answer after TOOL_ANSWER_WAIT_MS. */
export const TOOL_STILL_RUNNING = "This request is still being worked on. Wait a moment, then try again.";

/** How long a duplicate waits for the first delivery's answer (Vapi's own tool timeout is 20 s by default). */
export const TOOL_ANSWER_WAIT_MS = 10_000;
/** A claim older than this without an answer is taken over: the process that claimed it is gone. */
export const TOOL_CLAIM_STALE_MS = 25_000;
const POLL_MS = 25;

export interface AnswerToolCallsOptions {
  /** Where answers are kept (tool_call_answers); without it every delivery runs its handlers. */
  db?: Db;
  log?: { warn(details: object, message: string): void };
}

export function createToolRegistry(handlers: Record<string, ToolHandler> = {}): ToolRegistry {
  return new Map(Object.entries(handlers));
}

interface Answer {
  result?: string;
  error?: string;
  /** Kept in tool_call_answers (a retry gets it again). */
  keep: boolean;
}

interface AnswerKey {
  orgId: string;
  providerCallId: string;
  toolCallId: string;
  name: string;
}

async function run(handler: ToolHandler, toolCall: ToolCall, context: ToolCallContext, options: AnswerToolCallsOptions): Promise<Answer> {
  try {
    return { result: await handler(toolCall.arguments, context), keep: true };
  } catch (error) {
    if (error instanceof ToolCallError) return { error: error.message, keep: true };
    // A plain Error carries a sentence meant for the model; anything else (a database error) would leak internals.
    if (error instanceof Error && error.constructor === Error && error.message) return { error: error.message, keep: false };
    options.log?.warn({ err: error, tool: toolCall.name }, "a tool call failed");
    return { error: TOOL_FAILED, keep: false };
  }
}

/** Deliveries of one tool call under way in this process: a duplicate shares the first one's answer. */
const underWay = new Map<string, Promise<Answer>>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stored = (row: { result: string | null; error: string | null }): Answer | null =>
  row.result !== null ? { result: row.result, keep: true } : row.error !== null ? { error: row.error, keep: true } : null;

function keyWhere(key: AnswerKey) {
  return and(eq(toolCallAnswers.orgId, key.orgId), eq(toolCallAnswers.providerCallId, key.providerCallId), eq(toolCallAnswers.toolCallId, key.toolCallId));
}

/** Runs `work` once per key (across deliveries and processes) and answers what the first run answered. */
async function answerOnce(db: Db, key: AnswerKey, work: () => Promise<Answer>): Promise<Answer> {
  const unanswered = and(keyWhere(key), isNull(toolCallAnswers.result), isNull(toolCallAnswers.error));

  /** Runs the work under our claim and writes its answer; the first answer written wins. */
  const runClaimed = async (): Promise<Answer> => {
    const answer = await work();
    if (!answer.keep) {
      await db.delete(toolCallAnswers).where(unanswered);
      return answer;
    }
    const written = await db
      .update(toolCallAnswers)
      .set({ result: answer.result ?? null, error: answer.error ?? null })
      .where(unanswered)
      .returning({ toolCallId: toolCallAnswers.toolCallId });
    if (written.length > 0) return answer;
    // A stale-claim takeover answered first: both deliveries say what it said.
    const [row] = await db.select().from(toolCallAnswers).where(keyWhere(key));
    return (row && stored(row)) ?? answer;
  };

  let claimed: unknown[];
  try {
    claimed = await db
      .insert(toolCallAnswers)
      .values({ orgId: key.orgId, providerCallId: key.providerCallId, toolCallId: key.toolCallId, name: key.name })
      .onConflictDoNothing()
      .returning({ toolCallId: toolCallAnswers.toolCallId });
  } catch {
    // Not keepable (the organisation named by the event does not exist): answer without keeping.
    return work();
  }
  if (claimed.length > 0) return runClaimed();

  // Another delivery claimed it: its answer, once there.
  const deadline = Date.now() + TOOL_ANSWER_WAIT_MS;
  for (;;) {
    const [row] = await db.select().from(toolCallAnswers).where(keyWhere(key));
    // Its claim was released (its handler failed unexpectedly): run it here.
    if (!row) return answerOnce(db, key, work);
    const answer = stored(row);
    if (answer) return answer;
    if (Date.now() - row.createdAt.getTime() > TOOL_CLAIM_STALE_MS) {
      const taken = await db
        .update(toolCallAnswers)
        .set({ createdAt: new Date() })
        .where(and(unanswered, eq(toolCallAnswers.createdAt, row.createdAt)))
        .returning({ toolCallId: toolCallAnswers.toolCallId });
      if (taken.length > 0) return runClaimed();
    }
    if (Date.now() > deadline) return { error: TOOL_STILL_RUNNING, keep: false };
    await sleep(POLL_MS);
  }
}

/** The key a tool call's answer is kept under: the organisation and the provider's call (none: not kept). */
function answerKey(toolCall: ToolCall, message: Json, call: CallRow | null): AnswerKey | null {
  const ref = eventCall(message);
  const orgId = call?.orgId ?? ref.orgId ?? ref.agentOrgId;
  const providerCallId = ref.providerCallId ?? call?.providerCallId ?? null;
  if (!orgId || !providerCallId) return null;
  return { orgId, providerCallId, toolCallId: toolCall.id, name: toolCall.name };
}

export async function answerToolCalls(registry: ToolRegistry, message: Json, call: CallRow | null, options: AnswerToolCallsOptions = {}): Promise<{ results: ToolCallResult[] }> {
  const results = await Promise.all(
    toolCalls(message).map(async (toolCall): Promise<ToolCallResult> => {
      const handler = registry.get(toolCall.name);
      if (!handler) return { toolCallId: toolCall.id, name: toolCall.name, error: `Unknown tool "${toolCall.name}": this server has no handler for it.` };
      const work = () => run(handler, toolCall, { call, message, toolCallId: toolCall.id }, options);
      const key = options.db ? answerKey(toolCall, message, call) : null;
      let answer: Answer;
      if (!key || !options.db) {
        answer = await work();
      } else {
        const id = JSON.stringify([key.orgId, key.providerCallId, key.toolCallId]);
        let pending = underWay.get(id);
        if (!pending) {
          pending = answerOnce(options.db, key, work)
            .catch((error: unknown): Answer => {
              options.log?.warn({ err: error, tool: toolCall.name }, "a tool call's answer could not be kept");
              return { error: TOOL_FAILED, keep: false };
            })
            .finally(() => underWay.delete(id));
          underWay.set(id, pending);
        }
        answer = await pending;
      }
      return { toolCallId: toolCall.id, name: toolCall.name, ...(answer.result !== undefined ? { result: answer.result } : { error: answer.error ?? TOOL_FAILED }) };
    }),
  );
  return { results };
}
