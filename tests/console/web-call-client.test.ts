import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  assertAssistantOrSquad,
  createWebCallClient,
  isMobileDevice,
  Listeners,
  type WebCallClient,
  type WebCallEvent,
  type WebCallListener,
  type WebCallStarted,
  type WebCallStartRequest,
} from "../../src/web-call/client";
import {
  litSegments,
  normaliseVolume,
  WebCallController,
  type WebCallState,
} from "../../src/web-call/controller";
import { SandboxWebCallClient, sandboxScript, sandboxSpeechLevel } from "../../src/web-call/sandbox-client";
import { describeVapiError, readWebCall, VapiWebCallClient } from "../../src/web-call/vapi-client";

// @vapi-ai/web is replaced by a fake SDK; `sdk.loaded` says whether anything imported it.
const sdk = vi.hoisted(() => ({ loaded: false, instances: [] as any[] }));
vi.mock("@vapi-ai/web", async () => {
  sdk.loaded = true;
  const { EventEmitter } = await import("node:events");
  class FakeVapi extends EventEmitter {
    startArgs: unknown[] | null = null;
    muted = false;
    answer: unknown = { id: "call_1", webCallUrl: "https://example.daily.co/room", artifactPlan: { videoRecordingEnabled: true } };
    constructor(readonly key: string) {
      super();
      sdk.instances.push(this);
    }
    async start(...args: unknown[]) {
      this.startArgs = args;
      if (this.answer instanceof Error || (this.answer as { status?: number })?.status) throw this.answer;
      return this.answer;
    }
    async stop() {
      this.emit("call-end");
    }
    setMuted(mute: boolean) {
      this.muted = mute;
    }
    isMuted() {
      return this.muted;
    }
  }
  return { default: FakeVapi };
});

const ASSISTANT_OR_SQUAD = "Assistant or Squad must be provided.";
const NO_CALL = "Call object is not available.";

/** A client the test drives by hand. */
class FakeClient implements WebCallClient {
  readonly listeners = new Listeners();
  readonly requests: WebCallStartRequest[] = [];
  readonly muted: boolean[] = [];
  stopped = 0;
  inCall = false;
  failStart: Error | null = null;
  constructor(readonly kind: "vapi" | "sandbox" = "vapi") {}
  on(listener: WebCallListener) {
    return this.listeners.on(listener);
  }
  emit(event: WebCallEvent) {
    this.listeners.emit(event);
  }
  async start(request: WebCallStartRequest): Promise<WebCallStarted> {
    assertAssistantOrSquad(request);
    this.requests.push(request);
    if (this.failStart) throw this.failStart;
    this.inCall = true;
    return { id: "c1", webCallUrl: "https://x", videoRecordingEnabled: false, assistantVideoEnabled: false };
  }
  async stop() {
    this.stopped++;
    if (this.inCall) {
      this.inCall = false;
      this.emit({ type: "call-end" });
    }
  }
  setMuted(muted: boolean) {
    if (!this.inCall) throw new Error(NO_CALL);
    this.muted.push(muted);
  }
  isMuted() {
    return this.muted.at(-1) ?? false;
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the volume rule", () => {
  it("normalises the level by 0.15, caps it at 1, and lights round(volume × 10) of 10 segments", () => {
    expect(normaliseVolume(0)).toBe(0);
    expect(normaliseVolume(-1)).toBe(0);
    expect(normaliseVolume(Number.NaN)).toBe(0);
    expect(normaliseVolume(0.075)).toBeCloseTo(0.5);
    expect(normaliseVolume(0.15)).toBe(1);
    expect(normaliseVolume(0.6)).toBe(1);
    const table = [0, 0.0075, 0.01, 0.045, 0.075, 0.105, 0.135, 0.15, 0.3].map((level) => litSegments(normaliseVolume(level)));
    // 0.0075 is half a segment (0.05 × 10 = 0.5) and rounds up to 1.
    expect(table).toEqual([0, 1, 1, 3, 5, 7, 9, 10, 10]);
  });
});

describe("WebCallController", () => {
  let client: FakeClient;
  let controller: WebCallController;
  let states: WebCallState[];
  const state = () => controller.getState();

  beforeEach(() => {
    client = new FakeClient();
    controller = new WebCallController(async () => client);
    states = [];
    controller.subscribe(() => states.push(controller.getState()));
  });

  const activate = async () => {
    await controller.start({ assistantId: "asst_1" });
    client.emit({ type: "listening" });
    expect(state().status).toBe("active");
  };

  it("goes idle → loading on Start → active on 'listening' → ended on stop", async () => {
    expect(state().status).toBe("idle");
    const started = controller.start({ assistantId: "asst_1", assistantOverrides: { variableValues: { name: "Ada" } } });
    expect(state().status).toBe("loading");
    await started;
    expect(state().status).toBe("loading"); // created and joined, but not listening yet
    expect(client.requests).toEqual([{ assistantId: "asst_1", assistantOverrides: { variableValues: { name: "Ada" } } }]);
    client.emit({ type: "call-start" });
    expect(state().status).toBe("loading");
    client.emit({ type: "listening" });
    expect(state().status).toBe("active");
    await controller.stop();
    expect(state().status).toBe("ended");
    expect(client.stopped).toBe(1);
    expect(states.map((s) => s.status).filter((s, i, all) => s !== all[i - 1])).toEqual(["loading", "active", "ended"]);
  });

  it("ends on the call's call-end event", async () => {
    await activate();
    client.emit({ type: "call-end" });
    expect(state().status).toBe("ended");
    expect(state().speaking).toBe(false);
    expect(state().volume).toBe(0);
  });

  it("can start again after it ended, with the same client", async () => {
    await activate();
    client.emit({ type: "call-end" });
    await controller.start({ assistantId: "asst_1" });
    expect(state().status).toBe("loading");
    expect(client.requests).toHaveLength(2);
  });

  it("ignores Start while loading or active", async () => {
    await activate();
    await controller.start({ assistantId: "asst_1" });
    expect(client.requests).toHaveLength(1);
  });

  it("speaks when the level exceeds 0.01 and stops 1 s after it falls; a louder sample in that second cancels the end", async () => {
    vi.useFakeTimers();
    await activate();

    client.emit({ type: "audio-level", level: 0.01 });
    expect(state().speaking).toBe(false); // not above the threshold
    client.emit({ type: "audio-level", level: 0.0075 });
    expect(state().speaking).toBe(false);
    expect(litSegments(state().volume)).toBe(1);

    client.emit({ type: "audio-level", level: 0.075 });
    expect(state().speaking).toBe(true);
    expect(litSegments(state().volume)).toBe(5);
    client.emit({ type: "audio-level", level: 0.3 });
    expect(state().volume).toBe(1);
    expect(litSegments(state().volume)).toBe(10);

    client.emit({ type: "audio-level", level: 0 }); // falls
    expect(state().volume).toBe(0);
    vi.advanceTimersByTime(999);
    expect(state().speaking).toBe(true);
    vi.advanceTimersByTime(1);
    expect(state().speaking).toBe(false);

    client.emit({ type: "audio-level", level: 0.05 });
    expect(state().speaking).toBe(true);
    client.emit({ type: "audio-level", level: 0.002 });
    vi.advanceTimersByTime(600);
    client.emit({ type: "audio-level", level: 0.05 }); // back within the second
    client.emit({ type: "audio-level", level: 0 });
    vi.advanceTimersByTime(999);
    expect(state().speaking).toBe(true);
    vi.advanceTimersByTime(1);
    expect(state().speaking).toBe(false);
  });

  it("follows levels sampled every 100 ms (quiet samples during the tail do not extend it)", async () => {
    vi.useFakeTimers();
    await activate();
    client.emit({ type: "audio-level", level: 0.08 });
    for (let i = 0; i < 9; i++) {
      vi.advanceTimersByTime(100);
      client.emit({ type: "audio-level", level: 0 });
    }
    expect(state().speaking).toBe(true);
    vi.advanceTimersByTime(100);
    expect(state().speaking).toBe(true);
    vi.advanceTimersByTime(100);
    expect(state().speaking).toBe(false);
  });

  it("ignores levels outside an active call", async () => {
    client.emit({ type: "audio-level", level: 0.1 });
    expect(state().speaking).toBe(false);
    const started = controller.start({ assistantId: "asst_1" });
    await started;
    client.emit({ type: "audio-level", level: 0.1 });
    expect(state().speaking).toBe(false);
  });

  it("keeps the last final transcript line as the caption", async () => {
    await activate();
    client.emit({ type: "message", message: { type: "transcript", role: "assistant", transcriptType: "partial", transcript: "Hel" } });
    expect(state().caption).toBeNull();
    client.emit({ type: "message", message: { type: "transcript", role: "assistant", transcriptType: "final", transcript: "Hello Ada!" } });
    expect(state().caption).toEqual({ role: "assistant", text: "Hello Ada!" });
  });

  it("an error event clears loading and says why; during an active call it does not end the call", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await controller.start({ assistantId: "asst_1" });
    client.emit({ type: "error", error: new Error("Meeting could not be joined") });
    expect(state().status).toBe("idle");
    expect(state().error?.message).toBe("Meeting could not be joined");

    await activate();
    expect(state().error).toBeNull();
    client.emit({ type: "error", error: new Error("noise cancellation failed") });
    expect(state().status).toBe("active");
    expect(warn).toHaveBeenCalled();
  });

  it("a failing start clears loading with the failure's message", async () => {
    client.failStart = new Error("Microphone permission denied");
    await controller.start({ assistantId: "asst_1" });
    expect(state().status).toBe("idle");
    expect(state().error?.message).toBe("Microphone permission denied");
  });

  it("a client that cannot be created (Vapi mode without a public key) says 'public key invalid'", async () => {
    const failing = new WebCallController(() => createWebCallClient({ voiceMode: "vapi", vapiPublicKey: null }));
    await failing.start({ assistantId: "asst_1" });
    expect(failing.getState().status).toBe("idle");
    expect(failing.getState().error).toEqual({ message: "public key invalid", code: "public-key" });
    expect(sdk.loaded).toBe(false);
  });

  it.each([
    [{}],
    [{ assistantId: "" }],
    [{ assistantId: "  ", squadId: "" }],
    [{ assistantOverrides: { variableValues: { name: "Ada" } } }],
  ])("refuses to start without an assistant or a squad (%j): 'Assistant or Squad must be provided.'", async (request) => {
    await controller.start(request as WebCallStartRequest);
    expect(state().status).toBe("idle");
    expect(state().error?.message).toBe(ASSISTANT_OR_SQUAD);
    expect(client.requests).toEqual([]);
  });

  it.each([[{ assistantId: "a" }], [{ assistant: { name: "inline" } }], [{ squadId: "s" }], [{ squad: { members: [] } }]])(
    "accepts an assistant or a squad (%j)",
    (request) => {
      expect(() => assertAssistantOrSquad(request)).not.toThrow();
    },
  );

  it("muting without an active call gives 'Call object is not available.'", async () => {
    controller.setMuted(true);
    expect(state().error?.message).toBe(NO_CALL);
    await controller.start({ assistantId: "asst_1" });
    controller.setMuted(true); // loading: still no active call
    expect(state().error?.message).toBe(NO_CALL);
    expect(state().status).toBe("loading"); // and the start goes on
    client.emit({ type: "listening" });
    controller.setMuted(true);
    expect(client.muted).toEqual([true]);
    expect(state().muted).toBe(true);
    controller.setMuted(false);
    expect(state().muted).toBe(false);
  });

  it("a stop while the start is still pending wins: the late answer changes nothing", async () => {
    let release!: () => void;
    const slow = new FakeClient();
    const gate = new Promise<void>((resolve) => (release = resolve));
    const late = new WebCallController(async () => {
      await gate;
      return slow;
    });
    const started = late.start({ assistantId: "asst_1" });
    await late.stop();
    expect(late.getState().status).toBe("ended");
    release();
    await started;
    expect(late.getState().status).toBe("ended");
    expect(slow.requests).toEqual([]);
  });
});

describe("the sandbox client", () => {
  let events: WebCallEvent[];
  const names = () => events.filter((e) => e.type !== "audio-level").map((e) => e.type);

  beforeEach(() => {
    vi.useFakeTimers();
    events = [];
  });

  it("plays call-start, the 'listening' message, voice levels, speech and transcripts from the greeting, then call-end when stopped", async () => {
    const client = new SandboxWebCallClient({ greeting: "Hello Ada! How can I help?", mobile: false });
    client.on((event) => events.push(event));
    const started = client.start({ assistantId: "asst_1", assistantOverrides: { variableValues: { name: "Ada" } } });

    await vi.advanceTimersByTimeAsync(399);
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await started).toMatchObject({ webCallUrl: null, videoRecordingEnabled: false });
    expect(names()).toEqual(["call-start"]);

    await vi.advanceTimersByTimeAsync(600);
    expect(names()).toEqual(["call-start", "message", "listening"]);

    await vi.advanceTimersByTimeAsync(6000);
    const levels = events.filter((e): e is Extract<WebCallEvent, { type: "audio-level" }> => e.type === "audio-level").map((e) => e.level);
    expect(levels.length).toBe(60); // one every 100 ms
    expect(levels.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(levels.some((level) => level > 0.01)).toBe(true);
    expect(new Set(levels.map((level) => litSegments(normaliseVolume(level)))).size).toBeGreaterThan(3);
    expect(names()).toContain("speech-start");
    expect(names()).toContain("speech-end");
    const transcripts = events.flatMap((e) => (e.type === "message" && e.message.type === "transcript" ? [e.message.transcript] : []));
    expect(transcripts[0]).toBe("Hello Ada! How can I help?");

    client.setMuted(true);
    expect(client.isMuted()).toBe(true);
    await client.stop();
    expect(names().at(-1)).toBe("call-end");
    const count = events.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(events.length).toBe(count);
    expect(() => client.setMuted(true)).toThrow(NO_CALL);
  });

  it("uses the spec's default greeting when the agent has none", () => {
    const frames = sandboxScript("Hello! How can I help you today?", 60_000);
    const first = frames.flatMap((f) => f.events).find((e) => e.type === "message");
    expect(first).toMatchObject({ message: { transcript: "Hello! How can I help you today?", role: "assistant" } });
    expect(frames.length).toBe(600);
    expect(sandboxSpeechLevel(3)).toBeGreaterThan(0.01);
    expect(sandboxSpeechLevel(3)).toBeLessThan(0.15);
  });

  it("ends by itself after the call's length, with the closing line", async () => {
    const client = new SandboxWebCallClient({ maxDurationMs: 40_000, mobile: false });
    client.on((event) => events.push(event));
    void client.start({ assistantId: "asst_1" });
    await vi.advanceTimersByTimeAsync(1000 + 40_000);
    expect(names()).not.toContain("call-end");
    await vi.advanceTimersByTimeAsync(100);
    expect(names().at(-1)).toBe("call-end");
    const transcripts = events.flatMap((e) => (e.type === "message" && e.message.type === "transcript" ? [e.message.transcript] : []));
    expect(transcripts.at(-1)).toBe("Thank you for calling. Have a great day!");
    expect(transcripts[0]).toBe("Hello! How can I help you today?");
  });

  it("waits 1 s longer to join on mobile devices", async () => {
    const client = new SandboxWebCallClient({ mobile: true });
    client.on((event) => events.push(event));
    void client.start({ assistantId: "asst_1" });
    await vi.advanceTimersByTimeAsync(1399);
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(names()).toEqual(["call-start"]);
    expect(isMobileDevice("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)")).toBe(true);
    expect(isMobileDevice("Mozilla/5.0 (Linux; Android 14)")).toBe(true);
    expect(isMobileDevice("Mozilla/5.0 (X11; Linux x86_64) Chrome/140")).toBe(false);
  });

  it("a stop during connecting ends quietly", async () => {
    const client = new SandboxWebCallClient({ mobile: false });
    client.on((event) => events.push(event));
    const started = client.start({ assistantId: "asst_1" });
    await client.stop();
    await started;
    await vi.advanceTimersByTimeAsync(5000);
    expect(events).toEqual([]);
  });

  it("needs an assistant or a squad, and an active call to mute", async () => {
    const client = new SandboxWebCallClient();
    await expect(client.start({})).rejects.toThrow(ASSISTANT_OR_SQUAD);
    expect(() => client.setMuted(true)).toThrow(NO_CALL);
  });
});

describe("the vapi client", () => {
  beforeEach(() => {
    sdk.instances.length = 0;
  });
  afterEach(() => {
    sdk.loaded = false;
  });

  it("imports @vapi-ai/web on start only, and passes assistantId, assistantOverrides and squadId in the SDK's order", async () => {
    const client = await createWebCallClient({ voiceMode: "vapi", vapiPublicKey: "pk_live_1" });
    expect(client.kind).toBe("vapi");
    expect(sdk.loaded).toBe(false);

    const events: WebCallEvent[] = [];
    client.on((event) => events.push(event));
    const started = await client.start({ assistantId: "asst_1", assistantOverrides: { variableValues: { name: "Ada" } } });
    expect(sdk.loaded).toBe(true);
    const vapi = sdk.instances[0];
    expect(vapi.key).toBe("pk_live_1");
    expect(vapi.startArgs).toEqual(["asst_1", { variableValues: { name: "Ada" } }, undefined]);
    expect(started).toEqual({
      id: "call_1",
      webCallUrl: "https://example.daily.co/room",
      videoRecordingEnabled: true,
      assistantVideoEnabled: false,
    });
    expect(events.map((e) => e.type)).toEqual(["call-start"]);

    vapi.emit("call-start"); // the SDK's name for the call's 'listening' message
    vapi.emit("volume-level", 0.5);
    vapi.emit("volume-level", 1);
    vapi.emit("speech-start");
    vapi.emit("message", { type: "transcript", role: "assistant", transcriptType: "final", transcript: "Hi" });
    expect(events.slice(1)).toEqual([
      { type: "listening" },
      { type: "audio-level", level: 0.075 },
      { type: "audio-level", level: 0.15 },
      { type: "speech-start" },
      { type: "message", message: { type: "transcript", role: "assistant", transcriptType: "final", transcript: "Hi" } },
    ]);

    client.setMuted(true);
    expect(vapi.muted).toBe(true);
    await client.stop();
    expect(events.filter((e) => e.type === "call-end")).toHaveLength(1);
    expect(() => client.setMuted(false)).toThrow(NO_CALL);
  });

  it("passes an inline assistant or a squad as objects, and squadId as a string", async () => {
    const client = new VapiWebCallClient("pk");
    await client.start({ assistant: { name: "Inline" } });
    expect(sdk.instances[0].startArgs).toEqual([{ name: "Inline" }, undefined, undefined]);
    await client.stop();
    await client.start({ squadId: "squad_1" });
    expect(sdk.instances[0].startArgs).toEqual([undefined, undefined, "squad_1"]);
  });

  it("needs an assistant or a squad before loading anything, and a call to mute", async () => {
    const client = new VapiWebCallClient("pk");
    await expect(client.start({})).rejects.toThrow(ASSISTANT_OR_SQUAD);
    expect(sdk.loaded).toBe(false);
    expect(() => client.setMuted(true)).toThrow(NO_CALL);
  });

  it("turns a refused public key (401) into 'public key invalid'", async () => {
    const client = new VapiWebCallClient("pk_wrong");
    const loading = client.start({ assistantId: "asst_1" });
    await flush();
    sdk.instances[0].answer = { status: 401, error: { message: "Invalid Key. Hot tip, you may be using the private key instead of the public key" } };
    await expect(loading).resolves.toBeDefined(); // the first answer was already given
    await client.stop();
    await expect(client.start({ assistantId: "asst_1" })).rejects.toThrow("public key invalid");
  });

  it("reads the web call's fields and describes SDK errors", () => {
    expect(readWebCall({ transport: { callUrl: "https://t", assistantVideoEnabled: true } })).toEqual({
      id: null,
      webCallUrl: "https://t",
      videoRecordingEnabled: false,
      assistantVideoEnabled: true,
    });
    expect(describeVapiError({ type: "start-method-error", error: { message: "Meeting full" } }).message).toBe("Meeting full");
    expect(describeVapiError({ status: 403 }).message).toBe("public key invalid");
    expect(describeVapiError({}).message).toBe("The call could not be started. Please try again.");
  });
});
