import { CloseOutlined, FilterOutlined } from "@ant-design/icons";
import { AutoComplete, Badge, Button, DatePicker, Flex, Input, InputNumber, Select } from "antd";
import { useId, useState } from "react";
import type { CrudFilter } from "@refinedev/core";
import dayjs from "dayjs";
import { CALL_STATUSES, CALL_TYPES } from "../../../contract/call";
import { CALL_OUTCOMES } from "../../../contract/call-outcome";
import { SUCCESS_OUTCOMES } from "../../../contract/success-outcome";
import { DEFAULT_TIME_ZONE } from "../../../contract/time-zone-name";
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
const OUTCOME_OPTIONS = CALL_OUTCOMES.map((value) => ({ value, label: text.outcomes[value] }));
const SUCCESS_OPTIONS = SUCCESS_OUTCOMES.map((value) => ({ value, label: text.successOutcomes[value] }));

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
        className="call-logs__filter call-logs__filter--suggest"
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
      className="call-logs__filter call-logs__filter--search"
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
      className="call-logs__filter call-logs__filter--number"
    />
  );
}

/** Filters most reviews do without: behind "More filters", which opens by itself when one of them is set (e.g. from a link). */
const MORE_FIELDS: readonly CallFilterField[] = ["outcome", "success", "type", "endedReason", "successEvaluation", "durationMin", "durationMax", "costMin", "costMax"];

/**
 * The zone the date range's days are read in, when a link set one other than UTC (the dashboard passes
 * the organisation's): a small note beside the range, with a way back to UTC days.
 */
function TimeZoneNote({ zone, onClear }: { zone: string; onClear: () => void }) {
  return (
    <span className="call-logs__zone">
      {text.timeZoneNote(zone)}
      <Button type="text" size="small" icon={<CloseOutlined aria-hidden />} aria-label={text.clearTimeZone(zone)} title={text.clearTimeZone(zone)} onClick={onClear} />
    </span>
  );
}

/**
 * The Call Logs filters: search, dates, agent and status on one row (it fits 1440 px beside the
 * expanded sidebar), the rest behind "More filters". Text and numbers are committed after a pause;
 * pickers at once. On a phone each control takes a share of the row (call-logs.css) and they wrap.
 */
export function CallFilters({ filters, onChange }: { filters: CrudFilter[]; onChange: (patch: CallFilterPatch) => void }) {
  const { agents, isLoading: agentsLoading } = useAgentList();
  const value = (field: CallFilterField) => filterValue(filters, field);
  const set = (field: CallFilterField) => (next: string | number | undefined) => onChange({ [field]: next });
  const start = value("startDate");
  const end = value("endDate");
  // UTC is what the list reads days in anyway: a note only for another zone.
  const zone = value("timezone");
  const hasFilters = filters.length > 0;
  const moreSet = MORE_FIELDS.filter((field) => value(field) !== undefined).length;
  const [moreOpen, setMoreOpen] = useState(moreSet > 0);
  const moreId = useId();

  return (
    <div role="search" aria-label={text.filters} className="call-logs__filters">
      <Flex wrap gap={8} className="call-logs__filter-row">
        <DraftText label={text.search} committed={value("search")} onCommit={set("search")} />
        <DatePicker.RangePicker
          aria-label={text.dateRange}
          className="call-logs__filter call-logs__filter--dates"
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
        {zone && zone !== DEFAULT_TIME_ZONE && <TimeZoneNote zone={zone} onClear={() => onChange({ timezone: undefined })} />}
        <Select
          aria-label={text.agent}
          className="call-logs__filter call-logs__filter--agent"
          placeholder={text.agent}
          allowClear
          showSearch
          optionFilterProp="label"
          loading={agentsLoading}
          value={value("agentId")}
          onChange={set("agentId")}
          options={agents.map((agent) => ({ value: agent.id, label: agent.agent_name }))}
        />
        <Select aria-label={text.status} className="call-logs__filter call-logs__filter--status" placeholder={text.status} allowClear value={value("status")} onChange={set("status")} options={options(CALL_STATUSES)} />
        {/* The name says the count as a browser reads it (the Badge's animated digits are hidden by its CSS). */}
        <Button icon={<FilterOutlined aria-hidden />} aria-label={moreSet > 0 ? `${text.moreFilters} ${moreSet}` : text.moreFilters} aria-expanded={moreOpen} aria-controls={moreId} onClick={() => setMoreOpen(!moreOpen)}>
          {text.moreFilters}
          {moreSet > 0 && <Badge count={moreSet} size="small" color="#1677ff" />}
        </Button>
        {hasFilters && (
          <Button onClick={() => onChange(Object.fromEntries(filters.flatMap((f) => ("field" in f ? [[f.field, undefined]] : []))))}>
            {text.clearFilters}
          </Button>
        )}
      </Flex>
      <Flex wrap gap={8} id={moreId} hidden={!moreOpen} className="call-logs__filter-row call-logs__filter-row--more">
        <Select aria-label={text.outcome} className="call-logs__filter call-logs__filter--outcome" placeholder={text.outcome} allowClear value={value("outcome")} onChange={set("outcome")} options={OUTCOME_OPTIONS} />
        <Select aria-label={text.success} className="call-logs__filter call-logs__filter--type" placeholder={text.success} allowClear value={value("success")} onChange={set("success")} options={SUCCESS_OPTIONS} />
        <Select aria-label={text.type} className="call-logs__filter call-logs__filter--type" placeholder={text.type} allowClear value={value("type")} onChange={set("type")} options={options(CALL_TYPES)} />
        <DraftText label={text.endedReason} committed={value("endedReason")} onCommit={set("endedReason")} suggestions={ENDED_REASONS} />
        <DraftText label={text.successEvaluation} committed={value("successEvaluation")} onCommit={set("successEvaluation")} suggestions={SUCCESS_VALUES} />
        <DraftNumber label={text.durationMin} committed={filterNumber(filters, "durationMin")} onCommit={set("durationMin")} />
        <DraftNumber label={text.durationMax} committed={filterNumber(filters, "durationMax")} onCommit={set("durationMax")} />
        <DraftNumber label={text.costMin} committed={filterNumber(filters, "costMin")} onCommit={set("costMin")} step={0.01} />
        <DraftNumber label={text.costMax} committed={filterNumber(filters, "costMax")} onCommit={set("costMax")} step={0.01} />
      </Flex>
    </div>
  );
}
