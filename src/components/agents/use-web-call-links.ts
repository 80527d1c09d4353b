import { useDataProvider, useOne, type BaseRecord, type MetaQuery } from "@refinedev/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { PhoneNumber } from "../../../contract/phone-number";
import { webCallPagePath, webCallPaths, type WebCallCreate, type WebCallLink } from "../../../contract/web-call";
import { publicOrigin } from "../../config/public-config";
import { isApiError } from "../../providers/data/fetch-wrapper";

/** The browser address of a link's public page, on the server's public origin (PUBLIC_URL): the address visitors open. */
export function webCallLinkUrl(slug: string, origin: string = publicOrigin()): string {
  return `${origin}${webCallPagePath(slug)}`;
}

/** GET /webcall/ pages hold at most 100 links; this many pages is more than any organisation makes. */
const PAGE_SIZE = 100;
const MAX_PAGES = 20;

const LIST_KEY = ["webcall", "list"] as const;

interface WebCallListBody {
  data?: WebCallLink[];
  total?: number;
}

/**
 * The organisation's default phone number (GET /phonenumber/default), for the public link's `?pid=`.
 * 404 until the organisation has a number: that is "none yet", not a failure, and no toast either way.
 */
export function useDefaultPhoneNumber() {
  const { result, query } = useOne<PhoneNumber>({
    resource: "phonenumber",
    id: "default",
    errorNotification: false,
  });
  const missing = query.isError && isApiError(query.error) && query.error.statusCode === 404;
  return {
    phoneNumber: query.isSuccess && result?.id ? result : null,
    isLoading: query.isPending,
    /** No default number yet (404). */
    isMissing: missing,
    /** Any other failure: the link goes out without a pid. */
    isFailed: query.isError && !missing,
  };
}

/** The data provider's custom(): one request with the bearer token, failures as ApiError (`detail`). */
function useCustomRequest() {
  const dataProvider = useDataProvider();
  return useCallback(
    async <T extends BaseRecord>(request: { url: string; method: "get" | "post" | "delete"; payload?: unknown; query?: Record<string, unknown>; meta?: MetaQuery }) => {
      const custom = dataProvider().custom;
      if (!custom) throw new Error("The data provider has no custom()");
      const { data } = await custom<T>({
        url: request.url,
        method: request.method,
        payload: request.payload as never,
        query: request.query,
        meta: request.meta,
      });
      return data;
    },
    [dataProvider],
  );
}

/**
 * One agent's web-call links: GET /webcall/ (the organisation's, newest first; the API has no agent
 * filter, so every page is read and this agent's kept), POST /webcall/ and DELETE /webcall/{id}.
 * create and remove reject with the server's ApiError; the caller says what went wrong.
 */
export function useWebCallLinks(agentId: string) {
  const request = useCustomRequest();
  const queryClient = useQueryClient();

  const query = useQuery({
    queryKey: LIST_KEY,
    queryFn: async ({ meta: _meta, ...queryContext }) => {
      // The data provider takes React Query's context to abort a request nobody waits for any more.
      const meta: MetaQuery = { queryContext };
      const links: WebCallLink[] = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const body = await request<WebCallListBody>({ url: webCallPaths.list, method: "get", query: { page, limit: PAGE_SIZE }, meta });
        const rows = Array.isArray(body?.data) ? body.data : [];
        links.push(...rows);
        const total = typeof body?.total === "number" ? body.total : links.length;
        if (rows.length < PAGE_SIZE || links.length >= total) break;
      }
      return links;
    },
  });

  const create = useCallback(
    async (values: WebCallCreate): Promise<WebCallLink> => {
      const body = await request<{ data: WebCallLink }>({ url: webCallPaths.list, method: "post", payload: values });
      const link = body.data;
      queryClient.setQueryData<WebCallLink[]>(LIST_KEY, (links) => [link, ...(links ?? []).filter((other) => other.id !== link.id)]);
      void queryClient.invalidateQueries({ queryKey: LIST_KEY });
      return link;
    },
    [queryClient, request],
  );

  const remove = useCallback(
    async (link: WebCallLink): Promise<void> => {
      try {
        await request<{ data: { id: string } }>({ url: webCallPaths.one(link.id), method: "delete" });
      } catch (error) {
        // A 404 means someone else deleted it: either way the list should say what the server holds.
        void queryClient.invalidateQueries({ queryKey: LIST_KEY });
        throw error;
      }
      queryClient.setQueryData<WebCallLink[]>(LIST_KEY, (links) => (links ?? []).filter((other) => other.id !== link.id));
      void queryClient.invalidateQueries({ queryKey: LIST_KEY });
    },
    [queryClient, request],
  );

  return {
    links: (query.data ?? []).filter((link) => link.agent_id === agentId),
    isLoading: query.isPending,
    isError: query.isError,
    retry: () => void query.refetch(),
    create,
    remove,
  };
}
