/** Calls as the API answers them, and a fake server for the Call Logs screen's requests. */
import type { Agent } from "../../contract/agent";
import type { Call } from "../../contract/call";
import { callOutcome } from "../../contract/call-outcome";
import { successOutcome } from "../../contract/success-outcome";
import { AGENT_ID, makeAgent } from "./agents-fixtures";
import { json, type FetchFake } from "./fetch-fake";

export const CALL_ID = "7c1e0d5f-8a8b-4c51-9a43-2f4a8f0b7e11";
export const OTHER_CALL_ID = "9d342b2e-1f6a-4e0c-8d2b-7c9a1e3f4b22";

/**
 * A call as GET /call/{id} answers it. Its `outcome` and `success` follow from its status, ended reason
 * and evaluation by the contract's rules (as the server stores them) unless the overrides name them.
 */
export function makeCall(overrides: Partial<Call> = {}): Call {
  const call: Omit<Call, "outcome" | "success"> = {
    id: CALL_ID,
    type: "outbound",
    status: "ended",
    agent_id: AGENT_ID,
    agent_name: "Front desk",
    phone_number_id: null,
    customer_number: "+14155550100",
    customer_name: "Grace Hopper",
    started_at: "2026-03-05T09:00:00.000Z",
    ended_at: "2026-03-05T09:01:15.000Z",
    duration_seconds: 75,
    ended_reason: "assistant-ended-call",
    cost: 0.125,
    cost_breakdown: { transport: 0.0125, llm: 0.025, total: 0.125 },
    transcript: "AI: Hello! How are you doing today?\nUser: I need to move my appointment.",
    messages: [
      { role: "assistant", message: "Hello! How are you doing today?", time: 1, seconds_from_start: 0.4 },
      { role: "user", message: "I need to move my appointment.", time: 2, seconds_from_start: 65.2 },
    ],
    recording_url: "https://recordings.example.com/call.wav",
    stereo_recording_url: null,
    summary: "The caller asked to move an appointment.",
    structured_data: { appointment_moved: true, new_slot: "Friday 10:00", notes: { tone: "calm" } },
    success_evaluation: "true",
    campaign_id: null,
    campaign_contact_id: null,
    provider_call_id: "sandbox-1",
    is_sandbox: true,
    created_at: "2026-03-05T09:00:00.000Z",
    ...overrides,
  };
  return {
    ...call,
    outcome: overrides.outcome ?? callOutcome(call.status, call.ended_reason),
    success: overrides.success !== undefined ? overrides.success : successOutcome(call.success_evaluation),
  };
}

export function listItem(call: Call) {
  const { messages: _m, transcript: _t, cost_breakdown: _c, structured_data: _s, ...item } = call;
  return item;
}

/** Answers GET /agent/, GET /call/ (with `list`) and GET /call/{id} for the calls given. */
export function serveCalls(
  fetch: FetchFake,
  calls: Call[] = [makeCall()],
  extra: { total?: number; total_is_estimate?: boolean; agents?: Agent[] } = {},
): FetchFake {
  const agents = extra.agents ?? [makeAgent({ agent_name: "Front desk" })];
  fetch.on("GET", "/api/agent/", () => json({ data: agents, total: agents.length, page: 1, limit: 100 }));
  fetch.on("GET", "/api/call/", (request) =>
    json({
      data: calls.map(listItem),
      total: extra.total ?? calls.length,
      page: Number(request.query.get("page")),
      limit: Number(request.query.get("limit")),
      ...(extra.total_is_estimate ? { total_is_estimate: true } : {}),
    }),
  );
  for (const call of calls) fetch.on("GET", `/api/call/${call.id}`, () => json({ data: call }));
  return fetch;
}

/** The query of every GET /call/ so far, as plain objects. */
export function listQueries(fetch: FetchFake): Array<Record<string, string>> {
  return fetch.to("GET", "/api/call/").map((request) => Object.fromEntries(request.query));
}
