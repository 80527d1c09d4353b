/** Agents, catalogues and files as the API answers them, and a fake server for the agent editor's requests. */
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createElement, StrictMode } from "react";
import type { Location } from "react-router";
import { DEFAULT_AGENT_CONFIG, type Agent, type AgentConfig } from "../../contract/agent";
import type { LlmCatalogEntry, TranscriberCatalogEntry, VoiceCatalogEntry, VoiceModelCatalogEntry } from "../../contract/catalog";
import type { KnowledgeBaseFile } from "../../contract/file";
import { ConsoleRoutes } from "../../src/routes";
import { json, type FetchFake } from "./fetch-fake";
import { ConsoleProviders, FakeSession } from "./test-utils";


export const AGENT_ID = "0d5f7c1e-8a8b-4c51-9a43-2f4a8f0b7e11";
export const OTHER_AGENT_ID = "5b2e9d34-1f6a-4e0c-8d2b-7c9a1e3f4b22";

export function makeAgent(overrides: Partial<Agent> = {}): Agent {
  const id = overrides.id ?? AGENT_ID;
  return {
    ...structuredClone(DEFAULT_AGENT_CONFIG),
    id,
    agent_id: id,
    is_public: false,
    clone_enabled: false,
    clone_key: null,
    provider_assistant_id: null,
    sync_status: "local",
    cloned_from: null,
    created_at: "2026-03-01T09:00:00.000Z",
    updated_at: "2026-03-02T09:00:00.000Z",
    ...overrides,
  };
}

export const LLMS: LlmCatalogEntry[] = [
  {
    provider: "openai",
    name: "OpenAI",
    models: [
      { id: "gpt-4o", name: "GPT-4o" },
      { id: "gpt-4o-mini", name: "GPT-4o mini" },
    ],
  },
  { provider: "anthropic", name: "Anthropic", models: [{ id: "claude-sonnet-4-5", name: "Claude Sonnet 4.5" }] },
];

export const VOICES: VoiceCatalogEntry[] = [
  {
    provider: "deepgram",
    name: "Deepgram",
    supportsSpeed: false,
    voices: [
      { id: "angus", name: "Angus", gender: "male", accent: "Irish", models: ["aura"] },
      { id: "luna", name: "Luna", gender: "female", accent: "American", models: ["aura", "aura-2"] },
      { id: "thalia", name: "Thalia", gender: "female", accent: "American", models: ["aura-2"] },
    ],
  },
  {
    provider: "11labs",
    name: "ElevenLabs",
    supportsSpeed: true,
    speedRange: { min: 0.7, max: 1.2 },
    voices: [{ id: "burt", name: "Burt", gender: "male" }],
  },
];

export const VOICE_MODELS: VoiceModelCatalogEntry[] = [
  { provider: "deepgram", models: ["aura", "aura-2"] },
  { provider: "11labs", models: ["eleven_turbo_v2_5"] },
];

export const TRANSCRIBERS: TranscriberCatalogEntry[] = [
  {
    provider: "deepgram",
    name: "Deepgram",
    models: ["nova-3", "nova-2"],
    languages: [
      { code: "en", name: "English" },
      { code: "es", name: "Spanish" },
    ],
  },
];

export const FILES: KnowledgeBaseFile[] = [
  {
    id: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",
    name: "pricing.pdf",
    mime_type: "application/pdf",
    size_bytes: 245_760,
    created_at: "2026-03-01T10:00:00.000Z",
  },
];

const list = <T>(data: T[]) => ({ data, total: data.length, page: 1, limit: 100 });

/** Deep-merges a PUT body into the stored agent, nested plans field by field, as the server does. */
function merge(agent: Agent, body: Record<string, unknown>): Agent {
  const next = { ...agent } as Record<string, unknown>;
  for (const [key, value] of Object.entries(body)) {
    next[key] =
      value && typeof value === "object" && !Array.isArray(value)
        ? { ...(agent[key as keyof AgentConfig] as object), ...value }
        : value;
  }
  return { ...(next as Agent), updated_at: "2026-03-03T09:00:00.000Z" };
}

/**
 * Answers what the editor asks for: the list, each agent, PUT (merging), the catalogues and the files.
 * Returns the stored agents so a test can read what a save changed.
 */
export function serveAgents(fetch: FetchFake, agents: Agent[] = [makeAgent()], files: KnowledgeBaseFile[] = FILES) {
  const stored = new Map(agents.map((agent) => [agent.id, agent]));
  fetch
    .on("GET", "/api/agent/", () => json(list([...stored.values()])))
    .on("GET", "/api/llm/", () => json({ data: LLMS }))
    .on("GET", "/api/voice/", () => json({ data: VOICES }))
    .on("GET", "/api/voice/models", () => json({ data: VOICE_MODELS }))
    .on("GET", "/api/transcriber/", () => json({ data: TRANSCRIBERS }))
    .on("GET", "/api/file/files", () => json(list(files)))
    // The share panel: the default phone number (none yet) and the organisation's web-call links.
    .on("GET", "/api/phonenumber/default", () => json({ detail: "No default phone number yet", code: "not_found" }, 404))
    .on("GET", "/api/webcall/", () => json(list([])));
  for (const agent of agents) {
    const path = `/api/agent/${agent.id}`;
    fetch
      .on("GET", path, () => json({ data: stored.get(agent.id) }))
      .on("PUT", path, (request) => {
        const next = merge(stored.get(agent.id)!, request.body as Record<string, unknown>);
        stored.set(agent.id, next);
        return json({ data: next });
      });
  }
  return stored;
}

/** The text an antd Select shows for its value, found by the select's label. */
export function selectedOption(label: string): string {
  const input = screen.getAllByLabelText(label).find((element) => element.getAttribute("role") === "combobox");
  if (!input) throw new Error(`No select labelled ${label}`);
  const select = input.closest(".ant-select");
  return select?.querySelector(".ant-select-selection-item")?.textContent ?? "";
}

/** Opens the antd Select with this label and picks the option with this text. */
export async function pickOption(user: { click: (element: Element) => Promise<void> }, label: string, option: string) {
  await user.click(screen.getAllByLabelText(label).find((element) => element.getAttribute("role") === "combobox")!);
  const options = await screen.findAllByTitle(option);
  const inList = options.find((element) => element.classList.contains("ant-select-item-option")) ?? options.at(-1)!;
  await user.click(inList);
}

/** renderConsole under React's StrictMode (effects run twice), as main.tsx mounts the console. */
export function renderConsoleStrict({ path, fetch, session = new FakeSession() }: { path: string; fetch: FetchFake; session?: FakeSession }) {
  let current: Location | null = null;
  const user = userEvent.setup();
  const result = render(
    createElement(
      StrictMode,
      null,
      createElement(ConsoleProviders, {
        session,
        path,
        onLocation: (location: Location) => (current = location),
        children: createElement(ConsoleRoutes),
      }),
    ),
  );
  return { ...result, user, fetch, session, pathname: () => current?.pathname ?? "" };
}
