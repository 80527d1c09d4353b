/**
 * PostgreSQL error codes, read through Drizzle's wrapper (DrizzleQueryError keeps the driver's error
 * as `cause`); node-postgres and PGlite both carry the SQLSTATE in `code`.
 */
const UNIQUE_VIOLATION = "23505";

/** The driver's error inside Drizzle's wrapper: the one carrying a SQLSTATE `code`. */
function driverError(error: unknown): { code: string; message?: unknown } | undefined {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return current as { code: string; message?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const sqlState = (error: unknown) => driverError(error)?.code;

/** True when a write failed because a unique constraint or index already holds that value. */
export const isUniqueViolation = (error: unknown) => sqlState(error) === UNIQUE_VIOLATION;

/** True when PostgreSQL aborted the statement to break a deadlock (40P01): it is safe to run it again. */
export const isDeadlock = (error: unknown) => sqlState(error) === "40P01";

/** True when a write failed because an exclusion constraint holds a conflicting row (two appointments that would overlap). */
export const isExclusionViolation = (error: unknown) => sqlState(error) === "23P01";

/**
 * True when PostgreSQL refused a value it cannot store as text: the NUL character (22021
 * character_not_in_repertoire / invalid byte sequence, 22P05 untranslatable_character for jsonb's \u0000).
 */
export const isUnstorableText = (error: unknown) => {
  const state = sqlState(error);
  return state === "22021" || state === "22P05";
};

/**
 * True when PostgreSQL did not know a time-zone name (22023 invalid_parameter_value, `time zone "…" not
 * recognized`): a name the runtime's Intl accepted (contract/time-zone.ts) that the database's zone data
 * lacks.
 */
export const isUnknownTimeZone = (error: unknown) => {
  const found = driverError(error);
  return found?.code === "22023" && /^time zone .* not recognized/.test(String(found.message));
};
