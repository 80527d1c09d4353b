import { z } from "zod";
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE } from "./paging";

/**
 * The zod side of every paged list (ARCHITECTURE.md §3): the page/limit query, the list envelope and the
 * delete answer. Kept apart from paging.ts, which the console's first chunk imports without zod.
 */
export function pagingQuerySchema(options: { maxLimit?: number; defaultLimit?: number } = {}) {
  const max = options.maxLimit ?? 100;
  return z.object({
    page: z.coerce
      .number({ error: "page must be a number" })
      .int({ error: "page must be a whole number" })
      .min(1, { error: "page must be 1 or more" })
      .default(DEFAULT_PAGE),
    limit: z.coerce
      .number({ error: "limit must be a number" })
      .int({ error: "limit must be a whole number" })
      .min(1, { error: `limit must be between 1 and ${max}` })
      .max(max, { error: `limit must be between 1 and ${max}` })
      .default(options.defaultLimit ?? DEFAULT_PAGE_SIZE),
  });
}

/** `{data: [...], total, page, limit}` */
export function listResponseSchema<Item extends z.ZodType>(item: Item) {
  return z.object({ data: z.array(item), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
}

/** What a DELETE answers: the id of what is gone. */
export const deletedResponseSchema = z.object({ data: z.object({ id: z.uuid() }) });
