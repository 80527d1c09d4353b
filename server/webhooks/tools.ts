/**
 * `tool-calls`: the agent's model asks our server to run a tool. Handlers are registered by the
 * function name the model calls (appointment booking will be the first real one); Vapi waits for the
 * answer in its ServerMessageResponseToolCalls shape: `{results: [{toolCallId, name, result | error}]}`.
 * A tool nobody registered, or a handler that throws, answers an `error` the assistant can speak around.
 */
import type { CallRow } from "../calls/repository";
import { toolCalls, type Json } from "./vapi-message";

export interface ToolCallContext {
  /** Our call record, when the event names one we know. */
  call: CallRow | null;
  message: Json;
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

export function createToolRegistry(handlers: Record<string, ToolHandler> = {}): ToolRegistry {
  return new Map(Object.entries(handlers));
}

export async function answerToolCalls(registry: ToolRegistry, message: Json, call: CallRow | null): Promise<{ results: ToolCallResult[] }> {
  const results = await Promise.all(
    toolCalls(message).map(async (toolCall): Promise<ToolCallResult> => {
      const handler = registry.get(toolCall.name);
      if (!handler) return { toolCallId: toolCall.id, name: toolCall.name, error: `Unknown tool "${toolCall.name}": this server has no handler for it.` };
      try {
        return { toolCallId: toolCall.id, name: toolCall.name, result: await handler(toolCall.arguments, { call, message }) };
      } catch (error) {
        return { toolCallId: toolCall.id, name: toolCall.name, error: error instanceof Error && error.message ? error.message : "The tool failed." };
      }
    }),
  );
  return { results };
}
