import type { CrudFilter } from "@refinedev/core";
import { Flex, Input, Select } from "antd";
import { CAMPAIGN_STATUSES } from "../../../contract/campaign-shared";
import { strings } from "../../config/strings";
import { useDraft } from "../calls/use-draft";

const text = strings.campaigns;

export type CampaignFilterPatch = Partial<Record<"status" | "search", string | undefined>>;

export function campaignFilterValue(filters: CrudFilter[], field: "status" | "search"): string | undefined {
  const found = filters.find((filter) => "field" in filter && filter.field === field);
  const value = found?.value as unknown;
  return typeof value === "string" && value ? value : undefined;
}

/** The filters with `patch` applied; an emptied field is dropped (so it is neither in the URL nor sent). */
export function applyCampaignFilters(filters: CrudFilter[], patch: CampaignFilterPatch): CrudFilter[] {
  const fields = Object.keys(patch);
  const kept = filters.filter((filter) => !("field" in filter) || !fields.includes(filter.field));
  for (const [field, value] of Object.entries(patch)) {
    if (value && value.trim()) kept.push({ field, operator: field === "search" ? "contains" : "eq", value });
  }
  return kept;
}

/** Search by name (sent after a pause) and the state. */
export function CampaignFilters({ filters, onChange }: { filters: CrudFilter[]; onChange: (patch: CampaignFilterPatch) => void }) {
  const committed = campaignFilterValue(filters, "search") ?? "";
  const [draft, setDraft] = useDraft(committed, (value) => onChange({ search: value }));
  return (
    <Flex wrap gap={8} role="search" aria-label={text.filters} className="campaigns__filters">
      <Input.Search
        aria-label={text.search}
        placeholder={text.searchPlaceholder}
        value={draft}
        allowClear
        onChange={(event) => setDraft(event.target.value)}
        onSearch={(value) => onChange({ search: value })}
        className="campaigns__filter campaigns__filter--search"
      />
      <Select
        aria-label={text.status}
        placeholder={text.status}
        allowClear
        value={campaignFilterValue(filters, "status")}
        onChange={(value?: string) => onChange({ status: value })}
        options={CAMPAIGN_STATUSES.map((status) => ({ value: status, label: text.statuses[status] }))}
        className="campaigns__filter campaigns__filter--status"
      />
    </Flex>
  );
}
