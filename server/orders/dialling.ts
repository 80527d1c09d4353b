/**
 * What order follow-up adds to the campaign dialler's claim (server/campaigns/claim.ts), for campaigns
 * of kind `order_follow_up` only:
 *
 * - The calling rule of contract/calling-rules.ts: at most MAX_CALLS_PER_NUMBER_PER_24H calls to one
 *   number in any 24 hours, counted over every call of the organisation to that number (campaigns,
 *   follow-ups, calls placed by hand) and the calls this claim is placing. A picked contact over it
 *   waits: ready_at = when the oldest of those calls leaves the 24 hours (then moved into its window).
 *   One query for all the picked numbers (calls_org_number_started_idx).
 * - The orders of the contacts it claimed become `calling`, with a `call` event in their timeline.
 *
 * Both run inside the claim's transaction (it holds the organisation's row FOR NO KEY UPDATE, which every
 * writer of the organisation's calls takes or waits for, and the contacts). The claim reads each picked
 * contact's recent calls with its pick (one statement) and applies the rule with splitByNumberLimit.
 */
import { sql } from "drizzle-orm";
import { CALLS_PER_NUMBER_WINDOW_MS, MAX_CALLS_PER_NUMBER_PER_24H } from "../../contract/calling-rules";
import type { Db } from "../db/client";
import { numberArrayLiteral } from "../campaigns/contact-number";

/**
 * The start times (epoch ms, oldest first) of the organisation's calls to each of `numbers` within the
 * 24 hours before `now`.
 */
export async function recentCallsToNumbers(tx: Db, orgId: string, numbers: readonly string[], now: number): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  const unique = [...new Set(numbers)];
  if (unique.length === 0) return found;
  const since = new Date(now - CALLS_PER_NUMBER_WINDOW_MS).toISOString();
  const result = (await tx.execute(sql`
    select customer_number, started_at from calls
    where org_id = ${orgId} and customer_number = any(${numberArrayLiteral(unique)}::text[]) and started_at > ${since}::timestamptz
    order by started_at`)) as unknown as { rows: { customer_number: string; started_at: string | Date }[] };
  for (const row of result.rows) {
    const at = new Date(row.started_at).getTime();
    const list = found.get(row.customer_number);
    if (list) list.push(at);
    else found.set(row.customer_number, [at]);
  }
  return found;
}

/**
 * When the next call to a number whose recent calls started at `starts` (oldest first) may go: now when
 * fewer than the limit are within the 24 hours, else when enough of them have left it.
 */
export function nextAllowedCallAt(starts: readonly number[], now: number): number {
  const inWindow = starts.filter((at) => at > now - CALLS_PER_NUMBER_WINDOW_MS);
  if (inWindow.length < MAX_CALLS_PER_NUMBER_PER_24H) return now;
  return inWindow[inWindow.length - MAX_CALLS_PER_NUMBER_PER_24H]! + CALLS_PER_NUMBER_WINDOW_MS;
}

/**
 * Splits picked contacts into the ones that may be dialled now and the ones over the per-number limit
 * (with when they may go), counting the calls this claim places as it goes (two orders of one number
 * picked together count each other).
 */
export async function applyNumberLimit<C extends { id: string; number: string }>(tx: Db, orgId: string, picked: readonly C[], now: number): Promise<{ dial: C[]; wait: { contact: C; until: number }[] }> {
  return splitByNumberLimit(picked, await recentCallsToNumbers(tx, orgId, picked.map((contact) => contact.number), now), now);
}

/**
 * applyNumberLimit on start times already read (`recent`: each number's calls within the 24 hours, oldest
 * first). `recent` is updated with the calls it lets through, so a claim that keeps one map across its
 * rounds of picking counts the calls of its earlier rounds too.
 */
export function splitByNumberLimit<C extends { id: string; number: string }>(picked: readonly C[], recent: Map<string, number[]>, now: number): { dial: C[]; wait: { contact: C; until: number }[] } {
  const dial: C[] = [];
  const wait: { contact: C; until: number }[] = [];
  for (const contact of picked) {
    const starts = recent.get(contact.number) ?? [];
    const until = nextAllowedCallAt(starts, now);
    if (until > now) {
      wait.push({ contact, until });
    } else {
      dial.push(contact);
      starts.push(now);
      recent.set(contact.number, starts);
    }
  }
  return { dial, wait };
}

/** The claimed contacts' orders become `calling`, each with a `call` event naming its attempt (one statement each). */
export async function markOrdersCalling(tx: Db, orgId: string, claimed: readonly { callId: string; contactId: string; attempt: number }[], now: Date): Promise<void> {
  if (claimed.length === 0) return;
  const values = sql.join(
    claimed.map((one) => sql`(${one.contactId}::uuid, ${one.callId}::uuid, ${one.attempt}::int)`),
    sql`, `,
  );
  const at = now.toISOString();
  await tx.execute(sql`
    with placed as (
      select c.order_id, v.call_id, v.attempt from (values ${values}) as v(contact_id, call_id, attempt)
      join campaign_contacts c on c.id = v.contact_id and c.order_id is not null
    ),
    marked as (
      update orders o set status = 'calling', status_detail = 'Calling the customer now.', updated_at = ${at}::timestamptz
      from placed where o.id = placed.order_id and o.org_id = ${orgId} and o.status in ('open', 'calling')
      returning o.id
    )
    insert into order_events (id, org_id, order_id, kind, detail, call_id, created_at)
    select gen_random_uuid(), ${orgId}, placed.order_id, 'call',
      case when placed.attempt = 1 then 'Call placed.' else 'Call placed (attempt ' || placed.attempt || ').' end,
      placed.call_id, ${at}::timestamptz
    from placed`);
}
