import type { CatalogVoice, VoiceCatalogEntry, VoiceModelCatalogEntry } from "../../../contract";

/**
 * Text-to-speech providers, voices and models Vapi takes (its 2026 OpenAPI document: DeepgramVoice,
 * OpenAIVoice, ElevenLabsVoice, AzureVoice, CartesiaVoice). `supportsSpeed`/`speedRange` follow whether
 * and how each of those schemas has `speed`. tests/server/catalog.test.ts checks the ids against Vapi's enums.
 */

type Gender = NonNullable<CatalogVoice["gender"]>;
const voice = (id: string, name: string, gender?: Gender, accent?: string, models?: string[]): CatalogVoice => ({
  id,
  name,
  ...(gender ? { gender } : {}),
  ...(accent ? { accent } : {}),
  ...(models ? { models } : {}),
});

// Deepgram Aura: the first generation ("aura") and Aura-2 share some names; angus (the default) is Aura only.
const AURA = ["aura"];
const AURA_2 = ["aura-2"];
const BOTH = ["aura", "aura-2"];

const DEEPGRAM_VOICES: CatalogVoice[] = [
  voice("angus", "Angus", "male", "Irish", AURA),
  voice("asteria", "Asteria", "female", "American", BOTH),
  voice("luna", "Luna", "female", "American", BOTH),
  voice("stella", "Stella", "female", "American", AURA),
  voice("athena", "Athena", "female", undefined, BOTH),
  voice("hera", "Hera", "female", "American", BOTH),
  voice("orion", "Orion", "male", "American", BOTH),
  voice("arcas", "Arcas", "male", "American", BOTH),
  voice("perseus", "Perseus", "male", "American", AURA),
  voice("orpheus", "Orpheus", "male", "American", BOTH),
  voice("helios", "Helios", "male", "British", AURA),
  voice("zeus", "Zeus", "male", "American", BOTH),
  voice("thalia", "Thalia", "female", "American", AURA_2),
  voice("andromeda", "Andromeda", "female", "American", AURA_2),
  voice("helena", "Helena", "female", "American", AURA_2),
  voice("apollo", "Apollo", "male", "American", AURA_2),
  voice("aries", "Aries", "male", "American", AURA_2),
  voice("amalthea", "Amalthea", "female", "Filipino", AURA_2),
  voice("atlas", "Atlas", "male", "American", AURA_2),
  voice("aurora", "Aurora", "female", "American", AURA_2),
  voice("callista", "Callista", "female", "American", AURA_2),
  voice("cora", "Cora", "female", "American", AURA_2),
  voice("cordelia", "Cordelia", "female", "American", AURA_2),
  voice("delia", "Delia", "female", "American", AURA_2),
  voice("draco", "Draco", "male", "British", AURA_2),
  voice("electra", "Electra", "female", "American", AURA_2),
  voice("harmonia", "Harmonia", "female", "American", AURA_2),
  voice("hermes", "Hermes", "male", "American", AURA_2),
  voice("hyperion", "Hyperion", "male", "Australian", AURA_2),
  voice("iris", "Iris", "female", "American", AURA_2),
  voice("juno", "Juno", "female", "American", AURA_2),
  voice("jupiter", "Jupiter", "male", "American", AURA_2),
  voice("mars", "Mars", "male", "American", AURA_2),
  voice("minerva", "Minerva", "female", "American", AURA_2),
  voice("neptune", "Neptune", "male", "American", AURA_2),
  voice("odysseus", "Odysseus", "male", "American", AURA_2),
  voice("ophelia", "Ophelia", "female", "American", AURA_2),
  voice("pandora", "Pandora", "female", "British", AURA_2),
  voice("phoebe", "Phoebe", "female", "American", AURA_2),
  voice("pluto", "Pluto", "male", "American", AURA_2),
  voice("saturn", "Saturn", "male", "American", AURA_2),
  voice("selene", "Selene", "female", "American", AURA_2),
  voice("theia", "Theia", "female", "Australian", AURA_2),
  voice("vesta", "Vesta", "female", "American", AURA_2),
  voice("celeste", "Celeste (Spanish)", "female", "Colombian", AURA_2),
  voice("estrella", "Estrella (Spanish)", "female", "Mexican", AURA_2),
  voice("nestor", "Nestor (Spanish)", "male", "Peninsular Spanish", AURA_2),
  voice("sirio", "Sirio (Spanish)", "male", "Mexican", AURA_2),
  voice("carina", "Carina (Spanish)", "female", "Peninsular Spanish", AURA_2),
  voice("alvaro", "Alvaro (Spanish)", "male", "Peninsular Spanish", AURA_2),
  voice("diana", "Diana (Spanish)", "female", "Peninsular Spanish", AURA_2),
  voice("aquila", "Aquila (Spanish)", "male", "Latin American", AURA_2),
  voice("selena", "Selena (Spanish)", "female", "Latin American", AURA_2),
  voice("javier", "Javier (Spanish)", "male", "Mexican", AURA_2),
];

export const VOICE_CATALOG: VoiceCatalogEntry[] = [
  { provider: "deepgram", name: "Deepgram", voices: DEEPGRAM_VOICES, supportsSpeed: false },
  {
    provider: "openai",
    name: "OpenAI",
    // ash, ballad, coral, sage and verse work only with realtime models, so they are not offered.
    voices: [
      voice("alloy", "Alloy", "neutral"),
      voice("echo", "Echo", "male"),
      voice("fable", "Fable", "male", "British"),
      voice("onyx", "Onyx", "male"),
      voice("nova", "Nova", "female"),
      voice("shimmer", "Shimmer", "female"),
      voice("marin", "Marin", "female"),
      voice("cedar", "Cedar", "male"),
    ],
    supportsSpeed: true,
    speedRange: { min: 0.25, max: 4 },
  },
  {
    provider: "11labs",
    name: "ElevenLabs",
    // Vapi's preset names; any voice id from the ElevenLabs voice library also works.
    voices: [
      voice("sarah", "Sarah", "female"),
      voice("matilda", "Matilda", "female"),
      voice("paula", "Paula", "female"),
      voice("marissa", "Marissa", "female"),
      voice("andrea", "Andrea", "female"),
      voice("myra", "Myra", "female"),
      voice("burt", "Burt", "male"),
      voice("phillip", "Phillip", "male"),
      voice("steve", "Steve", "male"),
      voice("joseph", "Joseph", "male"),
      voice("ryan", "Ryan", "male"),
      voice("drew", "Drew", "male"),
      voice("paul", "Paul", "male"),
      voice("mark", "Mark", "male"),
      voice("mrb", "Mr. B", "male"),
    ],
    supportsSpeed: true,
    speedRange: { min: 0.7, max: 1.2 },
  },
  {
    provider: "azure",
    name: "Azure",
    voices: [
      voice("andrew", "Andrew", "male", "American"),
      voice("brian", "Brian", "male", "American"),
      voice("emma", "Emma", "female", "American"),
      voice("en-US-JennyNeural", "Jenny", "female", "American"),
      voice("en-US-GuyNeural", "Guy", "male", "American"),
      voice("en-US-AriaNeural", "Aria", "female", "American"),
      voice("en-GB-SoniaNeural", "Sonia", "female", "British"),
      voice("en-GB-RyanNeural", "Ryan", "male", "British"),
      voice("en-AU-NatashaNeural", "Natasha", "female", "Australian"),
      voice("en-IN-NeerjaNeural", "Neerja", "female", "Indian"),
      voice("es-MX-DaliaNeural", "Dalia (Spanish)", "female", "Mexican"),
      voice("fr-FR-DeniseNeural", "Denise (French)", "female", "French"),
      voice("de-DE-KatjaNeural", "Katja (German)", "female", "German"),
    ],
    supportsSpeed: true,
    speedRange: { min: 0.5, max: 2 },
  },
  {
    provider: "cartesia",
    name: "Cartesia",
    // Cartesia voices are ids from its public voice library; any other library id also works.
    voices: [
      voice("79a125e8-cd45-4c13-8a67-188112f4dd22", "British Lady", "female", "British"),
      voice("a0e99841-438c-4a64-b679-ae501e7d6091", "Barbershop Man", "male", "American"),
      voice("694f9389-aac1-45b6-b726-9d9369183238", "Sarah", "female", "American"),
      voice("156fb8d2-335b-4950-9cb3-a2d33befec77", "Helpful Woman", "female", "American"),
      voice("a167e0f3-df7e-4d52-a9c3-f949145efdab", "Customer Support Man", "male", "American"),
      voice("829ccd10-f8b3-43cd-b8a0-4aeaa81f3b30", "Customer Support Lady", "female", "American"),
    ],
    supportsSpeed: false,
  },
];

export const VOICE_MODEL_CATALOG: VoiceModelCatalogEntry[] = [
  { provider: "deepgram", models: ["aura-2", "aura"] },
  { provider: "openai", models: ["tts-1", "tts-1-hd", "gpt-4o-mini-tts"] },
  { provider: "11labs", models: ["eleven_turbo_v2_5", "eleven_flash_v2_5", "eleven_multilingual_v2", "eleven_v3", "eleven_turbo_v2", "eleven_flash_v2", "eleven_monolingual_v1"] },
  // Azure picks the model from the voice.
  { provider: "azure", models: [] },
  { provider: "cartesia", models: ["sonic-3.5", "sonic-3", "sonic-2", "sonic-english", "sonic-multilingual"] },
];
