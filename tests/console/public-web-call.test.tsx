import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { WEB_CALL_ICONS } from "../../contract/web-call";
import { INSTRUCTION_ICON_KEYS } from "../../src/components/public/icons";
import { forgetPublicConfig } from "../../src/config/public-config";
import { RootRoutes } from "../../src/root-routes";
import {
  assertAssistantOrSquad,
  Listeners,
  type WebCallClient,
  type WebCallEvent,
  type WebCallListener,
  type WebCallStarted,
  type WebCallStartRequest,
} from "../../src/web-call/client";
import { installFetchFake, json, type FetchFake } from "./fetch-fake";

/** A client the test drives by hand, used when `harness.fake` is set; otherwise the real factory runs. */
class FakeClient implements WebCallClient {
  readonly listeners = new Listeners();
  readonly requests: WebCallStartRequest[] = [];
  stopped = 0;
  inCall = false;
  startAnswer: Promise<void> = Promise.resolve();
  failStart: Error | null = null;
  constructor(readonly kind: "vapi" | "sandbox" = "vapi") {}
  on(listener: WebCallListener) {
    return this.listeners.on(listener);
  }
  emit(event: WebCallEvent) {
    act(() => this.listeners.emit(event));
  }
  async start(request: WebCallStartRequest): Promise<WebCallStarted> {
    assertAssistantOrSquad(request);
    this.requests.push(request);
    await this.startAnswer;
    if (this.failStart) throw this.failStart;
    this.inCall = true;
    return { id: "c1", webCallUrl: "https://x", videoRecordingEnabled: false, assistantVideoEnabled: false };
  }
  async stop() {
    this.stopped++;
    if (this.inCall) {
      this.inCall = false;
      this.listeners.emit({ type: "call-end" });
    }
  }
  setMuted() {}
  isMuted() {
    return false;
  }
}

const harness = vi.hoisted(() => ({ fake: null as null | { current: unknown }, vapiLoaded: false, vapi: [] as any[] }));

vi.mock("../../src/web-call/client", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/web-call/client")>();
  return {
    ...original,
    createWebCallClient: (options: Parameters<typeof original.createWebCallClient>[0]) =>
      harness.fake ? Promise.resolve(harness.fake.current) : original.createWebCallClient(options),
  };
});

vi.mock("@vapi-ai/web", async () => {
  harness.vapiLoaded = true;
  const { EventEmitter } = await import("node:events");
  class FakeVapi extends EventEmitter {
    startArgs: unknown[] = [];
    constructor(
      readonly key: string,
      readonly apiUrl?: string,
      readonly dailyConfig?: unknown,
    ) {
      super();
      harness.vapi.push(this);
    }
    async start(...args: unknown[]) {
      this.startArgs = args;
      return { id: "call_v", webCallUrl: "https://room" };
    }
    async stop() {
      this.emit("call-end");
    }
    setMuted() {}
    isMuted() {
      return false;
    }
  }
  return { default: FakeVapi };
});

const SLUG = "spring-sale";
const DETAILS = {
  callTitle: "Spring sale follow-up",
  name: "Ada",
  subTitle: "A two-minute call about your order.",
  assistantId: "asst_123",
  firstMessage: "Hi Ada, thanks for taking the spring sale call!",
  instructions: [
    { id: "i1", icon: "headphones", title: "Use headphones", description: "So the assistant does not hear itself." },
    { id: "i2", icon: "microphone", title: "Allow the microphone", description: "Your browser will ask." },
    { id: "i3", icon: "quiet", title: "Find a quiet place", description: "Background noise interrupts." },
  ],
};

const config = (voiceMode: "sandbox" | "vapi", vapiPublicKey: string | null = null) =>
  json({ data: { authMode: "local", voiceMode, clerkPublishableKey: null, vapiPublicKey, vapiApiUrl: voiceMode === "vapi" ? "https://vapi.example.test" : null } });

const SANDBOX_CALL_ID = "3b0c9a52-6f0e-4c41-9d55-0f3c1f1f4b7a";
/** The server's side of the sandbox call (POST /webcall/public/{slug}/call, …/end). */
const withSandboxServer = (fetch: FetchFake) =>
  fetch
    .on("POST", `/api/webcall/public/${SLUG}/call`, () => json({ data: { id: SANDBOX_CALL_ID, status: "in-progress", maxDurationSeconds: 60 } }, 201))
    .on("POST", `/api/webcall/public/${SLUG}/call/${SANDBOX_CALL_ID}/end`, () => json({ data: { id: SANDBOX_CALL_ID, status: "ended" } }));

function renderPage(fetch: FetchFake) {
  const user = userEvent.setup();
  render(
    <MemoryRouter initialEntries={[`/web-call/${SLUG}`]}>
      <RootRoutes />
    </MemoryRouter>,
  );
  return { user, fetch };
}

const withDetails = (details: unknown = DETAILS) =>
  installFetchFake()
    .on("GET", `/api/webcall/public/${SLUG}`, () => json({ data: details }))
    .on("GET", "/api/config", () => config("sandbox"));

function useFake(kind: "vapi" | "sandbox" = "vapi") {
  const client = new FakeClient(kind);
  harness.fake = { current: client };
  return client;
}

async function startButton() {
  return screen.findByRole("button", { name: "Start Call" }, { timeout: 10_000 });
}

beforeEach(() => {
  forgetPublicConfig();
  harness.fake = null;
  harness.vapiLoaded = false;
  harness.vapi.length = 0;
});

describe("/web-call/:callSlug: the details", () => {
  it("shows a loading state, then the title, 'Hi {name}', the subtitle, the instructions with icons, Start Call and 'Get help'", async () => {
    let answer!: (response: Response) => void;
    const fetch = installFetchFake().on("GET", `/api/webcall/public/${SLUG}`, () => new Promise<Response>((resolve) => (answer = resolve)));
    renderPage(fetch);

    await screen.findByText("Loading call", {}, { timeout: 10_000 });
    await waitFor(() => expect(answer).toBeTypeOf("function"));
    answer(json({ data: DETAILS }));

    await screen.findByRole("heading", { level: 1, name: "Spring sale follow-up" });
    expect(screen.getByText("Hi Ada")).toBeInTheDocument();
    expect(screen.getByText("A two-minute call about your order.")).toBeInTheDocument();
    const items = within(screen.getByRole("list", { name: "Before you start" })).getAllByRole("listitem");
    expect(items.map((item) => within(item).getByRole("heading", { level: 3 }).textContent)).toEqual([
      "Use headphones",
      "Allow the microphone",
      "Find a quiet place",
    ]);
    expect(within(items[0]!).getByText("So the assistant does not hear itself.")).toBeInTheDocument();
    expect(items.map((item) => item.querySelector("[data-icon]")!.getAttribute("data-icon"))).toEqual(["headphones", "microphone", "quiet"]);
    expect(items.every((item) => item.querySelector("svg"))).toBe(true);
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
    const help = screen.getByRole("link", { name: "Get help" });
    expect(help).toHaveAttribute("href", "#web-call-help");
    expect(document.getElementById("web-call-help")).toHaveTextContent("Need help?");
    await waitFor(() => expect(document.title).toBe("Spring sale follow-up · Voice Agents"));
    expect(fetch.requests.map((r) => r.url)).toEqual([`/api/webcall/public/${SLUG}`]); // /api/config only on Start
  });

  it("has an icon for every instruction icon the API may send", () => {
    expect([...INSTRUCTION_ICON_KEYS].sort()).toEqual([...WEB_CALL_ICONS].sort());
  });

  it("says 'This call link is not valid' for an unknown slug", async () => {
    renderPage(installFetchFake().on("GET", `/api/webcall/public/${SLUG}`, () => json({ detail: "Web call not found", code: "not_found" }, 404)));
    await screen.findByRole("heading", { level: 1, name: "This call link is not valid" }, { timeout: 10_000 });
    expect(screen.queryByRole("button", { name: "Start Call" })).toBeNull();
  });

  it("offers to try again when the details cannot be loaded", async () => {
    let fail = true;
    const fetch = installFetchFake().on("GET", `/api/webcall/public/${SLUG}`, () =>
      fail ? json({ detail: "boom", code: "internal" }, 500) : json({ data: DETAILS }),
    );
    const { user } = renderPage(fetch);
    await screen.findByRole("heading", { level: 1, name: "This call could not be loaded." }, { timeout: 10_000 });
    fail = false;
    await user.click(screen.getByRole("button", { name: "Try again" }));
    await screen.findByRole("heading", { level: 1, name: "Spring sale follow-up" });
  });

  it("renders instructions, title and name as text: markup shows literally and never runs", async () => {
    const hostile = {
      ...DETAILS,
      callTitle: "<b>Bold</b> title",
      name: "<script>alert('name')</script>",
      instructions: [
        { id: "x1", icon: "<svg onload=alert(1)>", title: "<img src=x onerror=alert(1)>", description: "<script>alert(2)</script>" },
      ],
    };
    renderPage(withDetails(hostile));
    await screen.findByRole("heading", { level: 1, name: "<b>Bold</b> title" }, { timeout: 10_000 });
    expect(screen.getByText("Hi <script>alert('name')</script>")).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 3, name: "<img src=x onerror=alert(1)>" })).toBeInTheDocument();
    expect(screen.getByText("<script>alert(2)</script>")).toBeInTheDocument();
    expect(document.querySelector("img[onerror], script, svg[onload], b")).toBeNull();
  });
});

describe("/web-call/:callSlug: the call", () => {
  it("Start → loading → active on 'listening' → overlay with speaking state and 10 segments → End Call → ended", async () => {
    const client = useFake();
    let release!: () => void;
    client.startAnswer = new Promise<void>((resolve) => (release = resolve));
    const { user } = renderPage(withDetails());
    await user.click(await startButton());

    const busy = await screen.findByRole("button", { name: "Connecting..." });
    expect(busy).toBeDisabled();
    expect(busy.querySelector(".pub-spinner")).not.toBeNull();
    expect(client.requests).toEqual([{ assistantId: "asst_123", assistantOverrides: { variableValues: { name: "Ada" } } }]);
    act(() => release());
    client.emit({ type: "call-start" });
    expect(screen.queryByRole("dialog")).toBeNull(); // not before 'listening'

    client.emit({ type: "listening" });
    const overlay = await screen.findByRole("dialog", { name: "Spring sale follow-up" });
    const view = within(overlay);
    expect(view.getByRole("status")).toHaveTextContent("Listening...");
    expect(view.queryByText("Sandbox")).toBeNull();
    const meter = view.getByRole("meter", { name: "Assistant volume" });
    const lit = () => meter.querySelectorAll(".pub-volume__segment--lit").length;
    expect(meter.children).toHaveLength(10);
    expect(lit()).toBe(0);
    expect(view.getByRole("button", { name: "End Call" })).toHaveFocus();

    client.emit({ type: "audio-level", level: 0.0075 });
    expect(lit()).toBe(1);
    expect(view.getByRole("status")).toHaveTextContent("Listening..."); // below 0.01

    client.emit({ type: "audio-level", level: 0.075 });
    expect(lit()).toBe(5);
    expect(meter).toHaveAttribute("aria-valuenow", "5");
    expect(view.getByRole("status")).toHaveTextContent("Assistant is speaking");

    client.emit({ type: "audio-level", level: 0.4 });
    expect(lit()).toBe(10);

    vi.useFakeTimers();
    client.emit({ type: "audio-level", level: 0 });
    expect(lit()).toBe(0);
    act(() => vi.advanceTimersByTime(999));
    expect(view.getByRole("status")).toHaveTextContent("Assistant is speaking");
    act(() => vi.advanceTimersByTime(1));
    expect(view.getByRole("status")).toHaveTextContent("Listening...");
    vi.useRealTimers();

    client.emit({ type: "message", message: { type: "transcript", role: "assistant", transcriptType: "final", transcript: "Hello Ada!" } });
    expect(view.getByText("Hello Ada!")).toBeInTheDocument();

    await user.click(view.getByRole("button", { name: "End Call" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(client.stopped).toBe(1);
    expect(screen.getByText("The call has ended.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
  });

  it("ends when the call sends call-end", async () => {
    const client = useFake();
    const { user } = renderPage(withDetails());
    await user.click(await startButton());
    client.emit({ type: "listening" });
    await screen.findByRole("dialog");
    client.emit({ type: "call-end" });
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByText("The call has ended.")).toBeInTheDocument();
  });

  it("an error clears loading and says why", async () => {
    const client = useFake();
    let release!: () => void;
    client.startAnswer = new Promise<void>((resolve) => (release = resolve));
    const { user } = renderPage(withDetails());
    await user.click(await startButton());
    expect(await screen.findByRole("button", { name: "Connecting..." })).toBeDisabled();

    client.emit({ type: "error", error: new Error("Meeting has ended") });
    expect(screen.getByRole("alert")).toHaveTextContent("Meeting has ended");
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
    act(() => release());
  });

  it("a failing start clears loading and says why", async () => {
    const client = useFake();
    client.failStart = new Error("Permission denied: microphone");
    const { user } = renderPage(withDetails());
    await user.click(await startButton());
    expect(await screen.findByRole("alert")).toHaveTextContent("Permission denied: microphone");
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
  });

  it("says 'Assistant or Squad must be provided.' when the link has no assistant", async () => {
    useFake();
    const { user } = renderPage(withDetails({ ...DETAILS, assistantId: "" }));
    await user.click(await startButton());
    expect(await screen.findByRole("alert")).toHaveTextContent("Assistant or Squad must be provided.");
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
  });

  it("in Vapi mode without a public key says 'public key invalid' and never loads the SDK", async () => {
    const fetch = withDetails().on("GET", "/api/config", () => config("vapi", null));
    const { user } = renderPage(fetch);
    await user.click(await startButton());
    expect(await screen.findByRole("alert")).toHaveTextContent("public key invalid");
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
    expect(harness.vapiLoaded).toBe(false);
  });

  it("in Vapi mode loads @vapi-ai/web only on Start, with the served public key", async () => {
    const fetch = withDetails().on("GET", "/api/config", () => config("vapi", "pk_public_1"));
    const { user } = renderPage(fetch);
    const start = await startButton();
    expect(harness.vapiLoaded).toBe(false);

    await user.click(start);
    await waitFor(() => expect(harness.vapi).toHaveLength(1));
    expect(harness.vapiLoaded).toBe(true);
    expect(harness.vapi[0].key).toBe("pk_public_1");
    // The SDK creates the call at VAPI_API_URL, and daily-js loads its call machine without eval (the page's CSP).
    expect(harness.vapi[0].apiUrl).toBe("https://vapi.example.test");
    expect(harness.vapi[0].dailyConfig).toEqual({ avoidEval: true });
    await waitFor(() => expect(harness.vapi[0].startArgs).toEqual(["asst_123", { variableValues: { name: "Ada" } }, undefined]));

    act(() => harness.vapi[0].emit("call-start")); // the 'listening' message
    const overlay = await screen.findByRole("dialog");
    act(() => harness.vapi[0].emit("volume-level", 0.5));
    expect(overlay.querySelectorAll(".pub-volume__segment--lit")).toHaveLength(5);
    expect(within(overlay).getByRole("status")).toHaveTextContent("Assistant is speaking");
    await user.click(within(overlay).getByRole("button", { name: "End Call" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("in sandbox mode plays a labelled 'Sandbox' call that the server records: the agent's welcome message, speaking, a moving volume bar, End Call", async () => {
    const fetch = withSandboxServer(withDetails().on("GET", "/api/config", () => config("sandbox")));
    const { user } = renderPage(fetch);
    await user.click(await startButton());

    const overlay = await screen.findByRole("dialog", {}, { timeout: 5000 });
    expect(fetch.to("POST", `/api/webcall/public/${SLUG}/call`)).toHaveLength(1);
    expect(within(overlay).getByText("Sandbox")).toBeInTheDocument();
    await waitFor(() => expect(within(overlay).getByRole("status")).toHaveTextContent("Assistant is speaking"), { timeout: 5000 });
    expect(overlay.querySelectorAll(".pub-volume__segment--lit").length).toBeGreaterThan(0);
    // The agent's own first message, not a generic greeting.
    await within(overlay).findByText("Hi Ada, thanks for taking the spring sale call!", {}, { timeout: 5000 });
    expect(within(overlay).queryByText("Hello! How can I help you today?")).toBeNull();
    expect(harness.vapiLoaded).toBe(false);

    await user.click(within(overlay).getByRole("button", { name: "End Call" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(screen.getByText("The call has ended.")).toBeInTheDocument();
    // Ending it here ends it on the server.
    await waitFor(() => expect(fetch.to("POST", `/api/webcall/public/${SLUG}/call/${SANDBOX_CALL_ID}/end`)).toHaveLength(1));
    expect(fetch.to("POST", `/api/webcall/public/${SLUG}/call/${SANDBOX_CALL_ID}/end`)[0]!.body).toEqual({ reason: "customer-ended-call" });
  });

  it("in sandbox mode a call the server refuses (wallet too low) is not started and says why", async () => {
    const detail = "Your wallet balance is too low to make calls. Please top up your account to continue using the service.";
    const fetch = withDetails()
      .on("GET", "/api/config", () => config("sandbox"))
      .on("POST", `/api/webcall/public/${SLUG}/call`, () => json({ detail, code: "insufficient_balance" }, 403));
    const { user } = renderPage(fetch);
    await user.click(await startButton());
    expect(await screen.findByRole("alert")).toHaveTextContent(detail);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByRole("button", { name: "Start Call" })).toBeEnabled();
  });
});
