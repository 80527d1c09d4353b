/**
 * GET /call/'s answers kept in memory (the JSON text sent), shared by nobody but this process, and
 * still never stale across processes: each is kept with the organisation's call-list version
 * (call_list_versions, server/db/schema.ts), which the database bumps in the same transaction as any
 * insert, update or delete of the organisation's calls and any rename of its agents (the triggers of
 * migration 0006), whichever process or person (SQL) made it. Every request reads the version first (one
 * primary-key read); an answer kept for the same request under the same version is sent as it is,
 * otherwise the list is read and its answer kept under the version read.
 *
 * The race: the version is read BEFORE the page and the total. Each of those statements sees a state at
 * least as new as the one the version came from (read committed: every statement takes a newer
 * snapshot), and a change to the calls commits together with its bump. So an answer kept under version v
 * reflects every change up to v, maybe more; a request that then reads v again has seen no change beyond
 * v and gets data at least as new as its own read. A change committed after the version was read makes
 * the next request read v + 1 and miss. The other order (page, then version) could keep an answer from
 * before a change under the version after it, and serve it stale until the next change.
 *
 * Key: the organisation from the verified token, then every parameter of the request as validated (page,
 * limit, dates, search, filters, sort), so another organisation, or another page or filter, never shares an
 * answer. Nothing in an answer depends on the clock (dates are whole UTC days given by the caller; no
 * status is derived from the time). The total above 20,000 calls is the planner's estimate, which may
 * also move when PostgreSQL analyzes the table without any call changing: a kept answer then shows the
 * estimate of its version, flagged total_is_estimate as always. TRUNCATE calls bumps nothing (no code
 * truncates it; whoever does by hand restarts the API).
 * At most `maxEntries` answers (500) and `maxChars` characters of them (16 million) are kept, the least
 * recently used dropped first.
 */
import { eq, sql } from "drizzle-orm";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { callListVersions } from "../db/schema";
import { KeptAnswers } from "../data/kept-answers";

function prepareVersion(db: Db) {
  // Named: one plan per connection, and no value could make a generic plan of a primary-key read wrong.
  return db.select({ version: callListVersions.version }).from(callListVersions).where(eq(callListVersions.orgId, sql.placeholder("orgId"))).prepare("call_list_version");
}

const versionStatements = new WeakMap<Db, ReturnType<typeof prepareVersion>>();

/** The organisation's call-list version: 0 until its calls first change. */
export async function callListVersion(db: Db, orgId: string): Promise<number> {
  let statement = versionStatements.get(db);
  if (!statement) versionStatements.set(db, (statement = prepareVersion(db)));
  const [row] = await statement.execute({ orgId });
  return Number(row?.version ?? 0);
}

export const CALL_LIST_ANSWERS_KEPT = 500;
/**
 * And at most this many characters of JSON in all (a page of 100 calls with long summaries is tens of
 * kilobytes): 16 million, about 32 MB of JavaScript strings at worst.
 */
export const CALL_LIST_ANSWER_CHARS_KEPT = 16_000_000;

/** The JSON text of GET /call/ answers by organisation and request, with the version each was read under. */
export class CallListAnswers {
  private readonly kept: KeptAnswers<number>;
  /** Requests answered from memory, and requests that read the list (tests, diagnostics). */
  hits = 0;
  misses = 0;

  constructor(maxEntries = CALL_LIST_ANSWERS_KEPT, maxChars = CALL_LIST_ANSWER_CHARS_KEPT) {
    this.kept = new KeptAnswers(maxEntries, maxChars);
  }

  /** How many answers are kept, and their characters in all. */
  get size(): number {
    return this.kept.size;
  }

  get keptChars(): number {
    return this.kept.keptChars;
  }

  /**
   * The answer to the organisation's request `params` (every validated query parameter): the kept text
   * when the organisation's version has not moved since it was made, else `read()`'s, kept.
   */
  async answer(db: Db, scope: OrgScope, params: Record<string, unknown>, read: () => Promise<string>): Promise<string> {
    const version = await callListVersion(db, scope.orgId);
    // The organisation first, then the validated parameters (zod gives them in the schema's order).
    const key = JSON.stringify([scope.orgId, params]);
    const kept = this.kept.get(key, version);
    if (kept !== undefined) {
      this.hits += 1;
      return kept;
    }
    this.misses += 1;
    const body = await read();
    // A slower request that read an older version does not replace an answer of a newer one.
    if ((this.kept.versionOf(key) ?? -1) <= version) this.kept.keep(key, version, body);
    return body;
  }
}
