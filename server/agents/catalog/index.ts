export { LLM_CATALOG } from "./llms";
export { TRANSCRIBER_CATALOG } from "./transcribers";
export { VOICE_CATALOG, VOICE_MODEL_CATALOG } from "./voices";
