import { AutoComplete, Button, DatePicker, Flex, Input, InputNumber, Select } from "antd";
import type { CrudFilter } from "@refinedev/core";
import dayjs from "dayjs";
import { CALL_STATUSES, CALL_TYPES } from "../../../contract/call";
import { strings } from "../../config/strings";
import { useAgentList } from "../../hooks/use-agent-list";
import { filterNumber, filterValue, type CallFilterField, type CallFilterPatch } from "./call-filter-values";
import { useDraft } from "./use-draft";

const text = strings.callLogs;

// Vapi's common ended reasons and the usual success answers; both filters also take free text.
const ENDED_REASONS = [
  "assistant-ended-call",
  "customer-ended-call",
  "customer-busy",
  "customer-did-not-answer",
  "voicemail",
  "silence-timed-out",
  "exceeded-max-duration",
  "assistant-forwarded-call",
];
const SUCCESS_VALUES = ["true", "false", "Good", "Poor"];

const options = (values: readonly string[]) => values.map((value) => ({ value, label: value }));

function DraftText({ label, committed, onCommit, suggestions }: { label: string; committed: string | undefined; onCommit: (value: string) => void; suggestions?: string[] }) {
  const [draft, setDraft] = useDraft(committed ?? "", onCommit);
  if (suggestions)
    return (
      <AutoComplete
        aria-label={label}
        placeholder={label}
        value={draft}
        onChange={(value: string) => setDraft(value ?? "")}
        options={options(suggestions)}
        allowClear
        style={{ width: 190 }}
      />
    );
  return (
    <Input.Search
      aria-label={label}
      placeholder={text.searchPlaceholder}
      value={draft}
      onChange={(event) => setDraft(event.target.value)}
      onSearch={(value) => onCommit(value)}
      allowClear
      style={{ width: 280 }}
    />
  );
}

function DraftNumber({ label, committed, onCommit, step }: { label: string; committed: number | undefined; onCommit: (value: number | undefined) => void; step?: number }) {
  const [draft, setDraft] = useDraft<number | undefined>(committed, onCommit);
  return (
    <InputNumber<number>
      aria-label={label}
      placeholder={label}
      min={0}
      step={step}
      value={draft ?? null}
      onChange={(value) => setDraft(value ?? undefined)}
      style={{ width: 150 }}
    />
  );
}

/** The Call Logs filters. Text and numbers are committed after a pause; pickers at once. */
export function CallFilters({ filters, onChange }: { filters: CrudFilter[]; onChange: (patch: CallFilterPatch) => void }) {
  const { agents, isLoading: agentsLoading } = useAgentList();
  const value = (field: CallFilterField) => filterValue(filters, field);
  const set = (field: CallFilterField) => (next: string | number | undefined) => onChange({ [field]: next });
  const start = value("startDate");
  const end = value("endDate");
  const hasFilters = filters.length > 0;

  return (
    <Flex wrap gap={8} role="search" aria-label={text.filters} className="call-logs__filters">
      <DraftText label={text.search} committed={value("search")} onCommit={set("search")} />
      <DatePicker.RangePicker
        aria-label={text.dateRange}
        placeholder={[text.startDate, text.endDate]}
        allowEmpty={[true, true]}
        value={[start ? dayjs(start) : null, end ? dayjs(end) : null]}
        onChange={(range) =>
          onChange({
            startDate: range?.[0]?.format("YYYY-MM-DD"),
            endDate: range?.[1]?.format("YYYY-MM-DD"),
          })
        }
      />
      <Select
        aria-label={text.agent}
        placeholder={text.agent}
        allowClear
        showSearch
        optionFilterProp="label"
        loading={agentsLoading}
        value={value("agentId")}
        onChange={set("agentId")}
        options={agents.map((agent) => ({ value: agent.id, label: agent.agent_name }))}
        style={{ width: 200 }}
      />
      <Select aria-label={text.status} placeholder={text.status} allowClear value={value("status")} onChange={set("status")} options={options(CALL_STATUSES)} style={{ width: 140 }} />
      <Select aria-label={text.type} placeholder={text.type} allowClear value={value("type")} onChange={set("type")} options={options(CALL_TYPES)} style={{ width: 120 }} />
      <DraftText label={text.endedReason} committed={value("endedReason")} onCommit={set("endedReason")} suggestions={ENDED_REASONS} />
      <DraftText label={text.successEvaluation} committed={value("successEvaluation")} onCommit={set("successEvaluation")} suggestions={SUCCESS_VALUES} />
      <DraftNumber label={text.durationMin} committed={filterNumber(filters, "durationMin")} onCommit={set("durationMin")} />
      <DraftNumber label={text.durationMax} committed={filterNumber(filters, "durationMax")} onCommit={set("durationMax")} />
      <DraftNumber label={text.costMin} committed={filterNumber(filters, "costMin")} onCommit={set("costMin")} step={0.01} />
      <DraftNumber label={text.costMax} committed={filterNumber(filters, "costMax")} onCommit={set("costMax")} step={0.01} />
      {hasFilters && (
        <Button onClick={() => onChange(Object.fromEntries(filters.flatMap((f) => ("field" in f ? [[f.field, undefined]] : []))))}>
          {text.clearFilters}
        </Button>
      )}
    </Flex>
  );
}
