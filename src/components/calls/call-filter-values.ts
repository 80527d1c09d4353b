import type { CrudFilter, CrudOperators } from "@refinedev/core";

/** Every filter of the Call Logs screen, by its API query name, with the operator it is kept under. */
export const CALL_FILTER_OPERATORS = {
  startDate: "gte",
  endDate: "lte",
  /** The zone startDate and endDate are days in (default UTC): set by the dashboard's links. */
  timezone: "eq",
  search: "contains",
  agentId: "eq",
  status: "eq",
  type: "eq",
  endedReason: "eq",
  successEvaluation: "eq",
  outcome: "eq",
  success: "eq",
  durationMin: "gte",
  durationMax: "lte",
  costMin: "gte",
  costMax: "lte",
} as const satisfies Record<string, CrudOperators>;

export type CallFilterField = keyof typeof CALL_FILTER_OPERATORS;
export type CallFilterPatch = Partial<Record<CallFilterField, string | number | undefined>>;

/** A filter's value as the screen shows it; values read back from the URL are strings. */
export function filterValue(filters: CrudFilter[], field: CallFilterField): string | undefined {
  const found = filters.find((filter) => "field" in filter && filter.field === field);
  const value = found?.value as unknown;
  if (value === undefined || value === null || value === "") return undefined;
  return String(value);
}

export function filterNumber(filters: CrudFilter[], field: CallFilterField): number | undefined {
  const value = filterValue(filters, field);
  const parsed = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** The filters with `patch` applied: a field set to an empty value is dropped, so it neither shows in the URL nor is sent. */
export function applyFilterPatch(filters: CrudFilter[], patch: CallFilterPatch): CrudFilter[] {
  const fields = Object.keys(patch) as CallFilterField[];
  const kept = filters.filter((filter) => !("field" in filter) || !fields.includes(filter.field as CallFilterField));
  for (const field of fields) {
    const value = patch[field];
    if (value === undefined || (typeof value === "string" && !value.trim())) continue;
    kept.push({ field, operator: CALL_FILTER_OPERATORS[field], value });
  }
  return kept;
}
