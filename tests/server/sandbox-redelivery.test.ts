// The sandbox as a provider that retries: a call's state (status-update, end-of-call-report) that did not
// reach our webhook route, or was answered 5xx, is sent again; everything else is sent once, and a 4xx is
// our route's final word.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSandboxCalls, SANDBOX_REDELIVERY_MS } from "../../server/voice/sandbox-calls";

type Answer = { statusCode: number; body: string } | Error;

/** A webhook route that answers from `answers` in turn (then 200), recording each message type it was sent. */
function route(answers: Answer[]) {
  const received: string[] = [];
  return {
    received,
    delivery: {
      secret: "test-secret",
      post: async (body: string) => {
        received.push((JSON.parse(body) as { message: { type: string } }).message.type);
        const answer = answers.shift() ?? { statusCode: 200, body: "{}" };
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
  };
}

const endOfCall = { type: "end-of-call-report", call: { id: "sandbox-1" }, endedReason: "customer-ended-call" };

describe("the sandbox's webhook deliveries", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("send an end-of-call report again after a 5xx and after a connection failure, then stop at the 2xx", async () => {
    vi.useFakeTimers();
    const engine = createSandboxCalls();
    const target = route([{ statusCode: 503, body: "{}" }, new Error("socket hang up")]);
    engine.connect(target.delivery);
    const sent = engine.send(endOfCall);
    await vi.advanceTimersByTimeAsync(SANDBOX_REDELIVERY_MS[0] + SANDBOX_REDELIVERY_MS[1]);
    await sent;
    expect(target.received).toEqual(["end-of-call-report", "end-of-call-report", "end-of-call-report"]);
    await engine.close();
  });

  it("give a lost status update up after the last retry", async () => {
    vi.useFakeTimers();
    const engine = createSandboxCalls();
    const failures = SANDBOX_REDELIVERY_MS.length + 5;
    const target = route(Array.from({ length: failures }, () => ({ statusCode: 500, body: "{}" })));
    engine.connect(target.delivery);
    const sent = engine.send({ type: "status-update", status: "ended", call: { id: "sandbox-2" } });
    await vi.advanceTimersByTimeAsync(SANDBOX_REDELIVERY_MS.reduce((sum, ms) => sum + ms, 0) + 1_000);
    await sent;
    expect(target.received).toHaveLength(SANDBOX_REDELIVERY_MS.length + 1);
    await engine.close();
  });

  it("do not repeat a 4xx, nor tool calls and transcripts", async () => {
    vi.useFakeTimers();
    const engine = createSandboxCalls();
    const target = route([{ statusCode: 401, body: "{}" }, { statusCode: 500, body: "{}" }, new Error("refused")]);
    engine.connect(target.delivery);
    await engine.send(endOfCall);
    await engine.send({ type: "tool-calls", toolCallList: [] });
    await engine.send({ type: "transcript", role: "user", transcript: "hello" });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(target.received).toEqual(["end-of-call-report", "tool-calls", "transcript"]);
    await engine.close();
  });

  it("close() ends a wait for a redelivery at once and sends nothing more", async () => {
    const engine = createSandboxCalls();
    const target = route([{ statusCode: 502, body: "{}" }]);
    engine.connect(target.delivery);
    const sent = engine.send(endOfCall);
    await vi.waitFor(() => expect(target.received).toHaveLength(1));
    const began = Date.now();
    await engine.close();
    await sent;
    expect(Date.now() - began).toBeLessThan(SANDBOX_REDELIVERY_MS[0]);
    expect(target.received).toHaveLength(1);
  });
});
