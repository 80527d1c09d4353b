import { CloseOutlined } from "@ant-design/icons";
import type { CrudFilter } from "@refinedev/core";
import { Button, DatePicker, Flex, Input, Select, Tag } from "antd";
import dayjs from "dayjs";
import { ORDER_STATUS_LABELS, ORDER_STATUSES, type OrderStatus } from "../../../contract/order-shared";
import { useDraft } from "../calls/use-draft";
import { ordersText } from "./strings";

const text = ordersText.filters;

export type OrderFilterField = "status" | "search" | "startDate" | "endDate" | "called";
/** `called`: "true" for the orders called at least once (the KPI card's figure), "" for all. */
export type OrderFilterPatch = Partial<{ status: OrderStatus[]; search: string; startDate: string; endDate: string; called: "true" | "" }>;

const OPERATORS: Record<OrderFilterField, CrudFilter["operator"]> = { status: "in", search: "contains", startDate: "gte", endDate: "lte", called: "eq" };

function found(filters: CrudFilter[], field: OrderFilterField): unknown {
  return filters.find((filter) => "field" in filter && filter.field === field)?.value as unknown;
}

export function orderFilterText(filters: CrudFilter[], field: Exclude<OrderFilterField, "status">): string | undefined {
  const value = found(filters, field);
  return typeof value === "string" && value ? value : undefined;
}

export function orderFilterStatuses(filters: CrudFilter[]): OrderStatus[] {
  const value = found(filters, "status");
  const values = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  return values.filter((one): one is OrderStatus => (ORDER_STATUSES as readonly string[]).includes(one as string));
}

/** The filters with `patch` applied; an emptied field is dropped (neither in the URL nor sent). */
export function applyOrderFilters(filters: CrudFilter[], patch: OrderFilterPatch): CrudFilter[] {
  const fields = Object.keys(patch);
  const kept = filters.filter((filter) => !("field" in filter) || !fields.includes(filter.field));
  for (const [field, value] of Object.entries(patch) as Array<[OrderFilterField, string | OrderStatus[] | undefined]>) {
    const empty = value === undefined || (Array.isArray(value) ? value.length === 0 : !value.trim());
    if (!empty) kept.push({ field, operator: OPERATORS[field], value } as CrudFilter);
  }
  return kept;
}

/** Search (sent after a pause), statuses (several), the days the orders were abandoned, and (from the KPI card) only the orders called. */
export function OrderFilters({ filters, onChange }: { filters: CrudFilter[]; onChange: (patch: OrderFilterPatch) => void }) {
  const committed = orderFilterText(filters, "search") ?? "";
  const [draft, setDraft] = useDraft(committed, (value) => onChange({ search: value }));
  const start = orderFilterText(filters, "startDate");
  const end = orderFilterText(filters, "endDate");
  const calledOnly = orderFilterText(filters, "called") === "true";
  return (
    <Flex wrap gap={8} role="search" aria-label={text.label} className="orders__filters">
      <Input.Search
        aria-label={text.search}
        placeholder={text.searchPlaceholder}
        value={draft}
        allowClear
        onChange={(event) => setDraft(event.target.value)}
        onSearch={(value) => onChange({ search: value })}
        className="orders__filter orders__filter--search"
      />
      <Select<OrderStatus[]>
        mode="multiple"
        aria-label={text.status}
        placeholder={text.status}
        allowClear
        maxTagCount="responsive"
        value={orderFilterStatuses(filters)}
        onChange={(value) => onChange({ status: value })}
        options={ORDER_STATUSES.map((status) => ({ value: status, label: ORDER_STATUS_LABELS[status] }))}
        className="orders__filter orders__filter--status"
      />
      <DatePicker.RangePicker
        aria-label={text.dateRange}
        className="orders__filter orders__filter--dates"
        placeholder={[text.startDate, text.endDate]}
        allowEmpty={[true, true]}
        value={[start ? dayjs(start) : null, end ? dayjs(end) : null]}
        onChange={(range) => onChange({ startDate: range?.[0]?.format("YYYY-MM-DD") ?? "", endDate: range?.[1]?.format("YYYY-MM-DD") ?? "" })}
      />
      {calledOnly && (
        <Tag closable className="orders__filter-tag" onClose={() => onChange({ called: "" })} closeIcon={<CloseOutlined aria-label={text.removeCalled} />}>
          {text.called}
        </Tag>
      )}
      {filters.length > 0 && <Button onClick={() => onChange({ status: [], search: "", startDate: "", endDate: "", called: "" })}>{text.clear}</Button>}
    </Flex>
  );
}
