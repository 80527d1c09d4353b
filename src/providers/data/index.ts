import type { BaseKey, BaseRecord, CrudFilter, CrudSort, DataProvider, GetListParams, LogicalFilter } from "@refinedev/core";
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE } from "../../../contract/paging";
import { API_URL } from "../../config/api-url";
import { createApiClient, type ApiClient, type QueryValue } from "./fetch-wrapper";

/**
 * Where each Refine resource lives on the API (spec §7). An operation a resource does not have is
 * left out, and calling it is a programming error, not a request.
 * `listQuery` names the query parameters the server reads for that list; nothing else is sent.
 */
interface ResourceRoutes {
  list?: string;
  one?: (id: BaseKey) => string;
  create?: string;
  update?: (id: BaseKey) => string;
  remove?: (id: BaseKey) => string;
  listQuery: (params: GetListParams) => Record<string, QueryValue>;
}

const id = (value: BaseKey) => encodeURIComponent(String(value));

function paging({ pagination }: GetListParams): Record<string, QueryValue> {
  // Client-side or no paging means "the whole list": the server's own defaults then apply.
  if (pagination?.mode === "off" || pagination?.mode === "client") return {};
  return {
    page: pagination?.currentPage ?? DEFAULT_PAGE,
    limit: pagination?.pageSize ?? DEFAULT_PAGE_SIZE,
  };
}

function crud(base: string): Omit<ResourceRoutes, "listQuery"> {
  return {
    list: `${base}/`,
    one: (key) => `${base}/${id(key)}`,
    create: `${base}/`,
    update: (key) => `${base}/${id(key)}`,
    remove: (key) => `${base}/${id(key)}`,
  };
}

export const resourceRoutes: Record<string, ResourceRoutes> = {
  agent: { ...crud("/agent"), listQuery: paging },
  call: {
    list: "/call/",
    one: (key) => `/call/${id(key)}`,
    create: "/call/",
    listQuery: (params) => ({ ...paging(params), ...callListFilterQuery(params.filters, params.sorters) }),
  },
  phonenumber: { ...crud("/phonenumber"), listQuery: paging },
  // Files are uploaded as multipart at POST /file/upload by the knowledge-base screen, not through here.
  file: { list: "/file/files", remove: (key) => `/file/file/${id(key)}`, listQuery: paging },
  campaign: { ...crud("/campaign"), listQuery: (params) => ({ ...paging(params), ...campaignListFilterQuery(params.filters) }) },
  // DELETE /appointment/{id} cancels it (the record stays, status cancelled).
  appointment: { ...crud("/appointment"), listQuery: (params) => ({ ...paging(params), ...appointmentListFilterQuery(params.filters) }) },
  order: { ...crud("/order"), listQuery: (params) => ({ ...paging(params), ...orderListFilterQuery(params.filters) }) },
  // The wallet's ledger (contract/billing.ts ledgerQuerySchema); read only.
  "billing-ledger": { list: "/billing/ledger", listQuery: (params) => ({ ...paging(params), ...ledgerFilterQuery(params.filters) }) },
};

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

/**
 * A calendar date as the call list wants it: `YYYY-MM-DD`, month and day zero-padded (spec §5).
 * Accepts a Date or dayjs value (its local calendar day, as picked in a date picker), or a string
 * starting with year-month-day. Anything else gives undefined, and the parameter is not sent.
 */
export function formatCalendarDate(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") {
    const match = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(value.trim());
    if (!match) return undefined;
    return `${match[1]}-${pad(Number(match[2]))}-${pad(Number(match[3]))}`;
  }
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === "number") date = new Date(value);
  else if (typeof value === "object" && typeof (value as { toDate?: unknown }).toDate === "function") {
    date = (value as { toDate: () => Date }).toDate();
  }
  if (!date || Number.isNaN(date.getTime())) return undefined;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function logicalFilters(filters: CrudFilter[] | undefined): LogicalFilter[] {
  return (filters ?? []).filter((filter): filter is LogicalFilter => "field" in filter);
}

/** The call list's filters that take one value as it is (an id, a status, a number), sent when non-empty. */
export const CALL_VALUE_FILTERS = [
  "timezone",
  "agentId",
  "status",
  "type",
  "endedReason",
  "campaignId",
  "successEvaluation",
  "outcome",
  "success",
  "durationMin",
  "durationMax",
  "costMin",
  "costMax",
] as const;

/** What the call list sorts by, keyed by the table's column field (the call's own field names). */
const CALL_SORT_FIELDS: Record<string, "startedAt" | "duration" | "cost"> = {
  started_at: "startedAt",
  startedAt: "startedAt",
  duration_seconds: "duration",
  duration: "duration",
  cost: "cost",
};

function valueFilter(value: unknown): QueryValue {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string") return value.trim() || undefined;
  return undefined;
}

/**
 * The call list's and the export's query, without paging: startDate/endDate (YYYY-MM-DD) only when
 * given, search only when non-empty, the other filters only with a value, and sortBy/sortOrder for the
 * first sort the server knows. Nothing else is sent.
 */
export function callListFilterQuery(filters: CrudFilter[] | undefined, sorters?: CrudSort[]): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const filter of logicalFilters(filters)) {
    if (filter.field === "search" && typeof filter.value === "string" && filter.value.trim()) {
      query.search = filter.value.trim();
    } else if (filter.field === "startDate" || filter.field === "endDate") {
      query[filter.field] = formatCalendarDate(filter.value);
    } else if ((CALL_VALUE_FILTERS as readonly string[]).includes(filter.field)) {
      query[filter.field] = valueFilter(filter.value);
    }
  }
  const sorter = (sorters ?? []).find((candidate) => CALL_SORT_FIELDS[candidate.field]);
  if (sorter) {
    query.sortBy = CALL_SORT_FIELDS[sorter.field];
    query.sortOrder = sorter.order === "asc" ? "asc" : "desc";
  }
  return query;
}

/** The campaign list's filters (contract/campaign.ts campaignListQuerySchema): status and search, each only when non-empty. */
export function campaignListFilterQuery(filters: CrudFilter[] | undefined): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const filter of logicalFilters(filters)) {
    if ((filter.field === "status" || filter.field === "search") && typeof filter.value === "string" && filter.value.trim()) {
      query[filter.field] = filter.value.trim();
    }
  }
  return query;
}

/**
 * The order list's query (contract/order.ts orderListQuerySchema): status as one or several values,
 * comma-separated; startDate/endDate as YYYY-MM-DD; search and integrationId only when non-empty; called
 * (true: the orders called at least once) only as "true" or "false".
 */
export function orderListFilterQuery(filters: CrudFilter[] | undefined): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const filter of logicalFilters(filters)) {
    if (filter.field === "startDate" || filter.field === "endDate") {
      query[filter.field] = formatCalendarDate(filter.value);
    } else if (filter.field === "status") {
      const values = (Array.isArray(filter.value) ? filter.value : [filter.value]).filter((value): value is string => typeof value === "string" && value.trim() !== "");
      query.status = values.length > 0 ? values.join(",") : undefined;
    } else if (filter.field === "search" || filter.field === "integrationId") {
      query[filter.field] = valueFilter(filter.value);
    } else if (filter.field === "called" && (filter.value === "true" || filter.value === "false")) {
      query.called = filter.value;
    }
  }
  return query;
}

/** The appointment list's filters (contract/calendar.ts appointmentListQuerySchema): each only with a value. */
export const APPOINTMENT_VALUE_FILTERS = ["status", "agentId", "search"] as const;

/**
 * The appointment list's query: startDate/endDate as YYYY-MM-DD (the days of the calendar's zone the
 * screen asks for, endDate included), status, agentId and search only when non-empty. Nothing else.
 */
export function appointmentListFilterQuery(filters: CrudFilter[] | undefined): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const filter of logicalFilters(filters)) {
    if (filter.field === "startDate" || filter.field === "endDate") {
      query[filter.field] = formatCalendarDate(filter.value);
    } else if ((APPOINTMENT_VALUE_FILTERS as readonly string[]).includes(filter.field)) {
      query[filter.field] = valueFilter(filter.value);
    }
  }
  return query;
}

/** The ledger's filters (contract/billing.ts ledgerQuerySchema), each only with a value; also the export's query. */
export const LEDGER_VALUE_FILTERS = ["kind", "agentId", "q", "minAmount", "maxAmount"] as const;

export function ledgerFilterQuery(filters: CrudFilter[] | undefined): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const filter of logicalFilters(filters)) {
    if (filter.field === "startDate" || filter.field === "endDate") {
      query[filter.field] = formatCalendarDate(filter.value);
    } else if ((LEDGER_VALUE_FILTERS as readonly string[]).includes(filter.field)) {
      query[filter.field] = valueFilter(filter.value);
    }
  }
  return query;
}

function routesFor(resource: string): ResourceRoutes {
  const routes = resourceRoutes[resource];
  if (!routes) throw new Error(`The API has no resource "${resource}"`);
  return routes;
}

function required<T>(value: T | undefined, resource: string, action: string): T {
  if (value === undefined) throw new Error(`The resource "${resource}" has no ${action} operation`);
  return value;
}

interface Envelope {
  data?: unknown;
  total?: unknown;
  /** The call list counts huge results approximately and says so. */
  total_is_estimate?: unknown;
}

function unwrap<T>(body: unknown): T {
  return ((body as Envelope | null)?.data ?? null) as T;
}

export function createDataProvider(options: {
  getToken: () => Promise<string | null>;
  apiUrl?: string;
  client?: ApiClient;
}): DataProvider {
  const apiUrl = options.apiUrl ?? API_URL;
  const client = options.client ?? createApiClient({ baseUrl: apiUrl, getToken: options.getToken });
  const signalOf = (meta: GetListParams["meta"]) => meta?.queryContext?.signal;

  return {
    getApiUrl: () => apiUrl,

    async getList<TData extends BaseRecord = BaseRecord>(params: GetListParams) {
      const routes = routesFor(params.resource);
      const body = await client.request<Envelope>({
        path: required(routes.list, params.resource, "list"),
        query: routes.listQuery(params),
        signal: signalOf(params.meta),
      });
      const data = Array.isArray(body?.data) ? (body.data as TData[]) : [];
      const total = typeof body?.total === "number" ? body.total : data.length;
      // Refine passes extra fields through: the call list shows "about N" for an estimated total.
      return { data, total, ...(body?.total_is_estimate === true ? { totalIsEstimate: true } : {}) };
    },

    async getOne({ resource, id: key, meta }) {
      const path = required(routesFor(resource).one, resource, "show")(key);
      return { data: unwrap(await client.request({ path, signal: signalOf(meta) })) };
    },

    async create({ resource, variables }) {
      const path = required(routesFor(resource).create, resource, "create");
      return { data: unwrap(await client.request({ method: "POST", path, body: variables })) };
    },

    async update({ resource, id: key, variables }) {
      const path = required(routesFor(resource).update, resource, "edit")(key);
      return { data: unwrap(await client.request({ method: "PUT", path, body: variables })) };
    },

    async deleteOne({ resource, id: key }) {
      const path = required(routesFor(resource).remove, resource, "delete")(key);
      const body = await client.request({ method: "DELETE", path });
      return { data: unwrap(body) ?? ({ id: key } as never) };
    },

    /** For calls outside the resources (e.g. the invitation); answers the body as the server sent it. */
    async custom({ url, method, payload, query, meta }) {
      const body = await client.request({
        method: method.toUpperCase() as "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
        path: url,
        query: query as Record<string, QueryValue> | undefined,
        body: payload,
        signal: signalOf(meta),
      });
      return { data: body as never };
    },
  };
}
