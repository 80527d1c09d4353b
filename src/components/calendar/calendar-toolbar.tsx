import { LeftOutlined, PlusOutlined, RightOutlined, SettingOutlined } from "@ant-design/icons";
import { Button, Checkbox, Flex, Input, Segmented, Select, Typography } from "antd";
import { useMemo } from "react";
import type { Agent } from "../../../contract/agent";
import { APPOINTMENT_STATUS_LABELS, APPOINTMENT_STATUSES, type AppointmentStatus } from "../../../contract/calendar-shared";
import { zoneNames } from "../../lib/time-zones";
import { useDraft } from "../calls/use-draft";
import type { CalendarUrlPatch, CalendarUrlState, CalendarViewName } from "./calendar-url";
import { calendarText } from "./strings";

const text = calendarText.toolbar;

/** Moving through time and choosing the view. */
export function CalendarNavigation({
  title,
  view,
  onToday,
  onPrevious,
  onNext,
  onView,
}: {
  title: string;
  view: CalendarViewName;
  onToday: () => void;
  onPrevious: () => void;
  onNext: () => void;
  onView: (view: CalendarViewName) => void;
}) {
  return (
    <Flex wrap align="center" gap={8} className="cal-nav">
      <Button onClick={onToday}>{text.today}</Button>
      <Button icon={<LeftOutlined />} aria-label={text.previous} onClick={onPrevious} />
      <Button icon={<RightOutlined />} aria-label={text.next} onClick={onNext} />
      <h2 className="cal-nav__title" aria-live="polite">
        {title}
      </h2>
      <Segmented<CalendarViewName>
        aria-label={text.view}
        className="cal-nav__views"
        value={view}
        onChange={onView}
        options={(Object.keys(text.views) as CalendarViewName[]).map((name) => ({ value: name, label: text.views[name] }))}
      />
    </Flex>
  );
}

/** Which appointments (agent, status, search, cancelled ones) and in which zone. */
export function CalendarFilters({
  state,
  agents,
  zone,
  calendarZone,
  onChange,
}: {
  state: CalendarUrlState;
  agents: Agent[];
  zone: string;
  calendarZone: string | undefined;
  onChange: (patch: CalendarUrlPatch) => void;
}) {
  const [draft, setDraft] = useDraft(state.q ?? "", (value) => onChange({ q: value.trim() || undefined }));
  const zones = useMemo(() => zoneNames(calendarZone ?? zone).map((name) => ({ value: name, label: name })), [calendarZone, zone]);
  return (
    <Flex wrap gap={8} align="center" role="search" aria-label={text.label} className="cal-filters">
      <Input.Search
        aria-label={text.search}
        placeholder={text.searchPlaceholder}
        value={draft}
        allowClear
        onChange={(event) => setDraft(event.target.value)}
        onSearch={(value) => onChange({ q: value.trim() || undefined })}
        className="cal-filters__search"
      />
      <Select
        aria-label={text.agent}
        value={state.agent ?? ""}
        onChange={(value: string) => onChange({ agent: value || undefined })}
        options={[{ value: "", label: text.allAgents }, ...agents.map((agent) => ({ value: agent.id, label: agent.agent_name }))]}
        className="cal-filters__select"
        popupMatchSelectWidth={false}
      />
      <Select
        aria-label={text.status}
        value={state.status ?? ""}
        onChange={(value: string) => onChange({ status: (value || undefined) as AppointmentStatus | undefined })}
        options={[{ value: "", label: text.allStatuses }, ...APPOINTMENT_STATUSES.map((status) => ({ value: status, label: APPOINTMENT_STATUS_LABELS[status] }))]}
        className="cal-filters__select"
      />
      {!state.status && (
        <Checkbox checked={state.cancelled} onChange={(event) => onChange({ cancelled: event.target.checked })}>
          {text.showCancelled}
        </Checkbox>
      )}
      <Flex align="center" gap={6} className="cal-filters__zone">
        <Typography.Text type="secondary" id="cal-zone-label">
          {text.timezone}
        </Typography.Text>
        <Select
          aria-labelledby="cal-zone-label"
          showSearch
          value={zone}
          onChange={(value: string) => onChange({ tz: value === calendarZone ? undefined : value })}
          options={zones}
          className="cal-filters__zone-select"
          popupMatchSelectWidth={false}
        />
      </Flex>
    </Flex>
  );
}

/** Availability settings and New appointment. */
export function CalendarActions({ canCreate, onAvailability, onCreate }: { canCreate: boolean; onAvailability: () => void; onCreate: () => void }) {
  return (
    <Flex wrap gap={8}>
      <Button icon={<SettingOutlined />} onClick={onAvailability}>
        {text.availability}
      </Button>
      {canCreate && (
        <Button type="primary" icon={<PlusOutlined />} onClick={onCreate}>
          {text.create}
        </Button>
      )}
    </Flex>
  );
}
