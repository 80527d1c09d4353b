/**
 * contract/call-outcome.ts's mapping as one SQL expression over a calls row (status, ended_reason):
 * the stored generated column calls.outcome. Built from the contract's constants, so the two cannot
 * drift apart without the schema changing (the database test compares the migration with the schema).
 * Immutable (CASE, =, ~ on text), as a generated column needs.
 */
import { FAILED_ENDED_REASON_PATTERN, OUTCOME_ENDED_REASONS } from "../../contract/call-outcome";

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

export const CALL_OUTCOME_SQL = [
  "CASE",
  "WHEN status = 'failed' THEN 'failed'",
  "WHEN status <> 'ended' THEN 'in_progress'",
  `WHEN ended_reason = ${literal(OUTCOME_ENDED_REASONS.busy)} THEN 'busy'`,
  `WHEN ended_reason = ${literal(OUTCOME_ENDED_REASONS.no_answer)} THEN 'no_answer'`,
  `WHEN ended_reason = ${literal(OUTCOME_ENDED_REASONS.voicemail)} THEN 'voicemail'`,
  `WHEN ended_reason ~ ${literal(FAILED_ENDED_REASON_PATTERN)} THEN 'failed'`,
  "ELSE 'answered' END",
].join(" ");
