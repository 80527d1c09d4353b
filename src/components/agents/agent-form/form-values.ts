import type { Rule } from "antd/es/form";
import { z } from "zod";
import {
  agentUpdateSchema,
  DEFAULT_AGENT_CONFIG,
  type AgentConfig,
  type AgentUpdate,
} from "../../../../contract/agent";

/**
 * The editor's form holds an AgentConfig as the contract shapes it (nested plans included), minus
 * appointment_enable, which has its own switch and endpoint. Nullable settings hold null, not "".
 */
export type AgentFormValues = Omit<AgentConfig, "appointment_enable">;

export const SETTING_GROUPS = ["analysis_plan", "transcriber", "voice"] as const;
type Group = (typeof SETTING_GROUPS)[number];
type TopKey = Exclude<keyof AgentFormValues, Group>;

/** A form field's name: a top-level setting, or a group and one of its settings. */
export type SettingPath =
  | readonly [TopKey]
  | readonly ["analysis_plan", keyof AgentConfig["analysis_plan"]]
  | readonly ["transcriber", keyof AgentConfig["transcriber"]]
  | readonly ["voice", keyof AgentConfig["voice"]];

const TOP_KEYS = (Object.keys(DEFAULT_AGENT_CONFIG) as (keyof AgentConfig)[]).filter(
  (key): key is TopKey => key !== "appointment_enable" && !(SETTING_GROUPS as readonly string[]).includes(key),
);

/** The form's values for a stored agent; a setting the answer lacks takes the spec's default. */
export function toFormValues(agent: Partial<AgentConfig>): AgentFormValues {
  const values = {} as Record<string, unknown>;
  for (const key of TOP_KEYS) values[key] = agent[key] ?? DEFAULT_AGENT_CONFIG[key];
  for (const group of SETTING_GROUPS) values[group] = { ...DEFAULT_AGENT_CONFIG[group], ...agent[group] };
  return values as AgentFormValues;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * What a save sends (PUT /agent/{id}): only the settings that differ from the stored agent; inside a
 * nested plan only its changed settings (the server merges plans field by field). Empty when unchanged.
 */
export function changedSettings(saved: AgentFormValues, current: Partial<AgentFormValues>): AgentUpdate {
  const changes: Record<string, unknown> = {};
  for (const key of TOP_KEYS) {
    if (key in current && !same(current[key], saved[key])) changes[key] = current[key];
  }
  for (const group of SETTING_GROUPS) {
    const now = (current[group] ?? {}) as Record<string, unknown>;
    const before = saved[group] as Record<string, unknown>;
    const groupChanges = Object.fromEntries(
      Object.keys(before)
        .filter((key) => key in now && !same(now[key], before[key]))
        .map((key) => [key, now[key]]),
    );
    if (Object.keys(groupChanges).length > 0) changes[group] = groupChanges;
  }
  return changes as AgentUpdate;
}

const unwrapOptional = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;

/** The contract's schema for one setting (agentUpdateSchema: no defaults, so an empty value is checked). */
export function settingSchema(path: SettingPath): z.ZodType {
  const shape = agentUpdateSchema.shape as Record<string, z.ZodType>;
  const [first, second] = path;
  const top = unwrapOptional(shape[first] as z.ZodType);
  if (second === undefined) return top;
  const groupShape = (top as z.ZodObject).shape as Record<string, z.ZodType>;
  return unwrapOptional(groupShape[second] as z.ZodType);
}

/** The accepted range of a numeric setting, read from its schema. */
export function settingRange(path: SettingPath): { min: number; max: number; integer: boolean } {
  const schema = settingSchema(path);
  if (!(schema instanceof z.ZodNumber)) throw new Error(`${path.join(".")} is not a number setting`);
  return { min: schema.minValue ?? -Infinity, max: schema.maxValue ?? Infinity, integer: schema.isInt };
}

/** An antd rule that checks the value with the contract's schema and shows zod's message beside the field. */
export function settingRule(path: SettingPath): Rule {
  const schema = settingSchema(path);
  return {
    validator: async (_rule, value: unknown) => {
      const result = schema.safeParse(value);
      if (!result.success) throw new Error(result.error.issues[0]?.message ?? "Invalid value");
    },
  };
}

/** zod's issues for a whole payload, as antd field errors (an issue inside a list goes to the list's field). */
export function issuesAsFieldErrors(error: z.ZodError): { name: (string | number)[]; errors: string[] }[] {
  return error.issues.map((issue) => {
    const [first, second] = issue.path as (string | number)[];
    const isGroup = (SETTING_GROUPS as readonly unknown[]).includes(first);
    const name = isGroup && second !== undefined ? [first as string, second] : [first as string];
    return { name, errors: [issue.message] };
  });
}

/** Empty text is "not set" (null) for the nullable settings. */
export const emptyAsNull = (value: unknown) => (typeof value === "string" && value.trim() === "" ? null : (value ?? null));
