import type { LlmCatalogEntry } from "../../../contract";

/**
 * Language models Vapi takes (its 2026 OpenAPI document: OpenAIModel, AnthropicModel, GoogleModel,
 * GroqModel, XaiModel), current ones first. tests/server/catalog.test.ts checks the ids against Vapi's enums.
 */
export const LLM_CATALOG: LlmCatalogEntry[] = [
  {
    provider: "openai",
    name: "OpenAI",
    models: [
      { id: "gpt-4o", name: "GPT-4o" },
      { id: "gpt-4o-mini", name: "GPT-4o mini" },
      { id: "gpt-4.1", name: "GPT-4.1" },
      { id: "gpt-4.1-mini", name: "GPT-4.1 mini" },
      { id: "gpt-4.1-nano", name: "GPT-4.1 nano" },
      { id: "gpt-5.5", name: "GPT-5.5" },
      { id: "gpt-5.4", name: "GPT-5.4" },
      { id: "gpt-5.4-mini", name: "GPT-5.4 mini" },
      { id: "gpt-5.4-nano", name: "GPT-5.4 nano" },
      { id: "gpt-5.2", name: "GPT-5.2" },
      { id: "gpt-5.1", name: "GPT-5.1" },
      { id: "gpt-5", name: "GPT-5" },
      { id: "gpt-5-mini", name: "GPT-5 mini" },
      { id: "gpt-5-nano", name: "GPT-5 nano" },
    ],
  },
  {
    provider: "anthropic",
    name: "Anthropic",
    models: [
      { id: "claude-sonnet-5", name: "Claude Sonnet 5" },
      { id: "claude-sonnet-4-6", name: "Claude Sonnet 4.6" },
      { id: "claude-opus-4-6", name: "Claude Opus 4.6" },
      { id: "claude-sonnet-4-5-20250929", name: "Claude Sonnet 4.5" },
      { id: "claude-opus-4-5-20251101", name: "Claude Opus 4.5" },
      { id: "claude-haiku-4-5-20251001", name: "Claude Haiku 4.5" },
      { id: "claude-sonnet-4-20250514", name: "Claude Sonnet 4" },
      { id: "claude-3-5-haiku-20241022", name: "Claude 3.5 Haiku" },
    ],
  },
  {
    provider: "google",
    name: "Google",
    models: [
      { id: "gemini-3.5-flash", name: "Gemini 3.5 Flash" },
      { id: "gemini-3.1-flash-lite", name: "Gemini 3.1 Flash-Lite" },
      { id: "gemini-2.5-pro", name: "Gemini 2.5 Pro" },
      { id: "gemini-2.5-flash", name: "Gemini 2.5 Flash" },
      { id: "gemini-2.5-flash-lite", name: "Gemini 2.5 Flash-Lite" },
      { id: "gemini-2.0-flash", name: "Gemini 2.0 Flash" },
    ],
  },
  {
    provider: "groq",
    name: "Groq",
    models: [
      { id: "llama-3.3-70b-versatile", name: "Llama 3.3 70B Versatile" },
      { id: "llama-3.1-8b-instant", name: "Llama 3.1 8B Instant" },
      { id: "meta-llama/llama-4-scout-17b-16e-instruct", name: "Llama 4 Scout 17B" },
      { id: "openai/gpt-oss-120b", name: "GPT-OSS 120B" },
      { id: "openai/gpt-oss-20b", name: "GPT-OSS 20B" },
      { id: "moonshotai/kimi-k2-instruct-0905", name: "Kimi K2 Instruct" },
    ],
  },
  {
    provider: "xai",
    name: "xAI",
    models: [
      { id: "grok-4.3", name: "Grok 4.3" },
      { id: "grok-4-fast-non-reasoning", name: "Grok 4 Fast (non-reasoning)" },
      { id: "grok-4-fast-reasoning", name: "Grok 4 Fast (reasoning)" },
      { id: "grok-3", name: "Grok 3" },
    ],
  },
];
