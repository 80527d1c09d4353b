import { CopyOutlined, DeleteOutlined, PlusOutlined } from "@ant-design/icons";
import { Alert, Button, DatePicker, Drawer, Flex, Form, Input, InputNumber, Select, Skeleton, Tag, Typography } from "antd";
import type { Dayjs } from "dayjs";
import { useMemo, useState } from "react";
import type { Agent } from "../../../contract/agent";
import type { Availability } from "../../../contract/calendar";
import { AVAILABILITY_LIMITS, WEEKDAYS, type Weekday } from "../../../contract/calendar-shared";
import { zoneNames } from "../../lib/time-zones";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { ORGANISATION_CALENDAR } from "./calendar-url";
import { isTime, keepEnterInPicker, minutesOf } from "./calendar-time";
import { inputOf, rangesOverlap, valuesOf, type AvailabilityValues, type RangeValue } from "./availability-values";
import { calendarText } from "./strings";
import { useAvailability, useSaveAvailability } from "./use-calendar-data";

const text = calendarText.availability;
const formText = calendarText.form;

type NamePath = Array<string | number>;

/** One range's From and Until (HH:MM; Until after From, 24:00 for the end of the day). */
function RangeFields({ path, listPath, label, index, disabled, onRemove }: { path: number; listPath: NamePath; label: string; index: number; disabled: boolean; onRemove: () => void }) {
  return (
    <Flex gap={8} align="start" role="group" aria-label={`${label} ${index + 1}`} className="cal-range">
      <Form.Item name={[path, "start"]} className="cal-range__time" rules={[{ required: true, validator: async (_, value: string) => { if (!isTime(value ?? "") || value === "24:00") throw new Error(formText.timeInvalid); } }]}>
        <Input aria-label={`${label} ${index + 1} ${text.from}`} placeholder="09:00" maxLength={5} inputMode="numeric" autoComplete="off" disabled={disabled} />
      </Form.Item>
      <span className="cal-range__dash">–</span>
      <Form.Item
        name={[path, "end"]}
        className="cal-range__time"
        dependencies={[[...listPath, path, "start"]]}
        rules={[
          ({ getFieldValue }) => ({
            validator: async (_, value: string) => {
              if (!isTime(value ?? "") || value === "00:00") throw new Error(formText.timeInvalid);
              const start = getFieldValue([...listPath, path, "start"]) as string | undefined;
              if (start && isTime(start) && minutesOf(value) <= minutesOf(start)) throw new Error(formText.endAfterStart);
            },
          }),
        ]}
      >
        <Input aria-label={`${label} ${index + 1} ${text.until}`} placeholder="17:00" maxLength={5} inputMode="numeric" autoComplete="off" disabled={disabled} />
      </Form.Item>
      {!disabled && <Button type="text" danger icon={<DeleteOutlined />} aria-label={text.removeRange(label, index + 1)} onClick={onRemove} />}
    </Flex>
  );
}

/** A day's ranges (a weekday's or a date override's): none means closed. */
function RangeList({ listPath, label, disabled, extra }: { listPath: NamePath; label: string; disabled: boolean; extra?: React.ReactNode }) {
  return (
    <Form.List
      name={listPath}
      rules={[
        {
          validator: async (_, ranges: RangeValue[] | undefined) => {
            if ((ranges?.length ?? 0) > AVAILABILITY_LIMITS.rangesPerDay) throw new Error(text.tooManyRanges(AVAILABILITY_LIMITS.rangesPerDay));
            if (rangesOverlap(ranges)) throw new Error(text.rangeOverlap);
          },
        },
      ]}
    >
      {(fields, { add, remove }, { errors }) => (
        <Flex vertical gap={4}>
          {fields.length === 0 && <Typography.Text type="secondary">{text.closed}</Typography.Text>}
          {fields.map((field, index) => (
            <RangeFields key={field.key} path={field.name} listPath={listPath} label={label} index={index} disabled={disabled} onRemove={() => remove(field.name)} />
          ))}
          <Form.ErrorList errors={errors} />
          {!disabled && (
            <Flex wrap gap={8}>
              <Button size="small" icon={<PlusOutlined />} disabled={fields.length >= AVAILABILITY_LIMITS.rangesPerDay} onClick={() => add({ start: "09:00", end: "17:00" })} aria-label={text.addRange(label)}>
                {text.addHours}
              </Button>
              {extra}
            </Flex>
          )}
        </Flex>
      )}
    </Form.List>
  );
}

/** Weekly hours: a row a weekday, each with its ranges and "Copy to all days". */
function WeeklyHours({ disabled }: { disabled: boolean }) {
  const form = Form.useFormInstance<AvailabilityValues>();
  const toasts = useToasts();
  const copyToAll = (day: Weekday) => {
    const ranges = (form.getFieldValue(["weekly", day]) as RangeValue[] | undefined) ?? [];
    form.setFieldValue("weekly", Object.fromEntries(WEEKDAYS.map((other) => [other, ranges.map((range) => ({ ...range }))])));
    toasts.notice(text.copied(calendarText.weekdays[day]));
  };
  return (
    <Flex vertical gap={12} role="group" aria-label={text.weekly}>
      {WEEKDAYS.map((day) => (
        <div key={day} className="cal-weekday" role="group" aria-label={calendarText.weekdays[day]}>
          <Typography.Text strong className="cal-weekday__name">
            {calendarText.weekdays[day]}
          </Typography.Text>
          <RangeList
            listPath={["weekly", day]}
            label={calendarText.weekdays[day]}
            disabled={disabled}
            extra={
              <Button size="small" type="link" icon={<CopyOutlined />} onClick={() => copyToAll(day)}>
                {text.copyToAll(calendarText.weekdays[day])}
              </Button>
            }
          />
        </div>
      ))}
    </Flex>
  );
}

/** Closed dates: tags, each removable, and a picker that adds one. */
function ClosedDates({ value = [], onChange, disabled }: { value?: string[]; onChange?: (value: string[]) => void; disabled: boolean }) {
  return (
    <Flex vertical gap={8}>
      <Flex wrap gap={4}>
        {value.map((date) => (
          <Tag key={date} closable={!disabled} onClose={() => onChange?.(value.filter((other) => other !== date))} closeIcon={<span aria-label={text.removeClosedDate(date)}>×</span>}>
            {date}
          </Tag>
        ))}
      </Flex>
      {!disabled && (
        <DatePicker
          onKeyDown={keepEnterInPicker}
          aria-label={text.addClosedDate}
          placeholder={text.addClosedDate}
          format="YYYY-MM-DD"
          value={null}
          disabled={value.length >= AVAILABILITY_LIMITS.closedDates}
          onChange={(picked: Dayjs | null) => {
            if (!picked) return;
            const date = picked.format("YYYY-MM-DD");
            if (!value.includes(date)) onChange?.([...value, date].sort());
          }}
        />
      )}
    </Flex>
  );
}

/** Date overrides: a date and its own ranges (none: closed that day). */
function DateOverrides({ disabled }: { disabled: boolean }) {
  return (
    <Form.List
      name="date_overrides"
      rules={[
        {
          validator: async (_, overrides: AvailabilityValues["date_overrides"] | undefined) => {
            const dates = (overrides ?? []).flatMap((override) => (override?.date ? [override.date.format("YYYY-MM-DD")] : []));
            if (new Set(dates).size !== dates.length) throw new Error(text.duplicateDate);
          },
        },
      ]}
    >
      {(fields, { add, remove }, { errors }) => (
        <Flex vertical gap={12}>
          {fields.map((field, index) => (
            <OverrideRow key={field.key} name={field.name} index={index} disabled={disabled} onRemove={() => remove(field.name)} />
          ))}
          <Form.ErrorList errors={errors} />
          {!disabled && (
            <Button icon={<PlusOutlined />} style={{ alignSelf: "flex-start" }} disabled={fields.length >= AVAILABILITY_LIMITS.dateOverrides} onClick={() => add({ date: null, ranges: [{ start: "10:00", end: "14:00" }] })}>
              {text.addOverride}
            </Button>
          )}
        </Flex>
      )}
    </Form.List>
  );
}

function OverrideRow({ name, index, disabled, onRemove }: { name: number; index: number; disabled: boolean; onRemove: () => void }) {
  const form = Form.useFormInstance<AvailabilityValues>();
  const date = Form.useWatch(["date_overrides", name, "date"], form) as AvailabilityValues["date_overrides"][number]["date"] | undefined;
  const label = date ? date.format("YYYY-MM-DD") : `${text.overrideDate} ${index + 1}`;
  return (
    <div className="cal-override" role="group" aria-label={label}>
      <Flex gap={8} align="start">
        <Form.Item name={[name, "date"]} rules={[{ required: true, message: formText.dateRequired }]} style={{ marginBottom: 8 }}>
          <DatePicker onKeyDown={keepEnterInPicker} aria-label={`${text.overrideDate} ${index + 1}`} format="YYYY-MM-DD" disabled={disabled} />
        </Form.Item>
        {!disabled && <Button type="text" danger icon={<DeleteOutlined />} aria-label={text.removeOverride(label)} onClick={onRemove} />}
      </Flex>
      <RangeList listPath={["date_overrides", name, "ranges"]} label={label} disabled={disabled} />
    </div>
  );
}

function Minutes({ name, label, range, disabled, unit = text.minutes, optional, extra }: { name: keyof AvailabilityValues; label: string; range: { min: number; max: number }; disabled: boolean; unit?: string; optional?: boolean; extra?: string }) {
  return (
    <Form.Item
      name={name}
      label={label}
      extra={extra}
      rules={[
        { required: !optional, message: text.between(range.min, range.max) },
        { type: "integer", message: text.wholeNumber },
        { type: "number", min: range.min, max: range.max, message: text.between(range.min, range.max) },
      ]}
    >
      <InputNumber min={range.min} max={range.max} precision={0} suffix={unit} disabled={disabled} style={{ width: 200 }} />
    </Form.Item>
  );
}

function AvailabilityForm({ availability, agentId, canEdit, onSaved }: { availability: Availability; agentId: string | undefined; canEdit: boolean; onSaved: () => void }) {
  const [form] = Form.useForm<AvailabilityValues>();
  const { save, isPending } = useSaveAvailability();
  const toasts = useToasts();
  const [failure, setFailure] = useState<string | null>(null);
  const zones = useMemo(() => zoneNames(availability.timezone).map((zone) => ({ value: zone, label: zone })), [availability.timezone]);
  const disabled = !canEdit;

  const submit = async (values: AvailabilityValues) => {
    setFailure(null);
    try {
      await save(inputOf(values, agentId));
      toasts.success(text.saved);
      onSaved();
    } catch (error) {
      setFailure((error as ApiError | undefined)?.message ?? text.failed);
    }
  };

  return (
    <Form form={form} layout="vertical" initialValues={valuesOf(availability)} onFinish={(values) => void submit(values)} className="cal-availability">
      {failure && <Alert type="error" showIcon role="alert" message={text.failed} description={failure} style={{ marginBottom: 16 }} />}
      <Form.Item name="timezone" label={text.timezone} rules={[{ required: true }]}>
        <Select showSearch options={zones} disabled={disabled} style={{ maxWidth: 320 }} />
      </Form.Item>
      <Typography.Title level={5}>{text.weekly}</Typography.Title>
      <Typography.Paragraph type="secondary">{text.weeklyHint}</Typography.Paragraph>
      <WeeklyHours disabled={disabled} />
      <Flex wrap gap={16} style={{ marginTop: 24 }}>
        <Minutes name="slot_minutes" label={text.slotMinutes} range={AVAILABILITY_LIMITS.slotMinutes} disabled={disabled} />
        <Minutes name="buffer_before_minutes" label={text.bufferBefore} range={AVAILABILITY_LIMITS.bufferMinutes} disabled={disabled} />
        <Minutes name="buffer_after_minutes" label={text.bufferAfter} range={AVAILABILITY_LIMITS.bufferMinutes} disabled={disabled} />
        <Minutes name="min_notice_minutes" label={text.minNotice} range={AVAILABILITY_LIMITS.minNoticeMinutes} disabled={disabled} />
        <Minutes name="max_days_ahead" label={text.maxDaysAhead} range={AVAILABILITY_LIMITS.maxDaysAhead} unit={text.days} disabled={disabled} />
        <Minutes name="max_per_day" label={text.maxPerDay} range={AVAILABILITY_LIMITS.maxPerDay} unit="" optional extra={text.maxPerDayHint} disabled={disabled} />
      </Flex>
      <Typography.Title level={5}>{text.closedDates}</Typography.Title>
      <Typography.Paragraph type="secondary">{text.closedDatesHint}</Typography.Paragraph>
      <Form.Item name="closed_dates">
        <ClosedDates disabled={disabled} />
      </Form.Item>
      <Typography.Title level={5}>{text.overrides}</Typography.Title>
      <Typography.Paragraph type="secondary">{text.overridesHint}</Typography.Paragraph>
      <DateOverrides disabled={disabled} />
      {canEdit && (
        <Button type="primary" htmlType="submit" loading={isPending} style={{ marginTop: 24 }}>
          {text.save}
        </Button>
      )}
    </Form>
  );
}

/**
 * The availability rules (GET /availability/, PUT /availability/ for admins): the organisation's, or an
 * agent's own. Members see them read-only. `target` is ORGANISATION_CALENDAR or an agent's id; undefined
 * closes the drawer.
 */
export function AvailabilityDrawer({
  target,
  agents,
  canEdit,
  onTarget,
  onClose,
  onSaved,
}: {
  target: string | undefined;
  agents: Agent[];
  canEdit: boolean;
  onTarget: (target: string) => void;
  onClose: () => void;
  onSaved: () => void;
}) {
  const agentId = target && target !== ORGANISATION_CALENDAR ? target : undefined;
  const { availability, query } = useAvailability(agentId);
  const shown = query.isPending ? undefined : availability;

  let body;
  if (query.isError)
    body = <Alert type="error" showIcon message={calendarText.availabilityFailed} description={query.error?.message} action={<Button size="small" onClick={() => void query.refetch()}>{calendarText.retry}</Button>} />;
  else if (!shown)
    body = (
      <div role="status" aria-label={text.loading}>
        <Skeleton active />
      </div>
    );
  else
    body = (
      <>
        {shown.inherited && <Alert type="info" showIcon message={text.inherited} style={{ marginBottom: 16 }} />}
        {shown.is_default && !shown.inherited && <Alert type="info" showIcon message={text.isDefault} style={{ marginBottom: 16 }} />}
        <AvailabilityForm key={`${target}-${shown.updated_at ?? "default"}`} availability={shown} agentId={agentId} canEdit={canEdit} onSaved={onSaved} />
      </>
    );

  return (
    <Drawer open={target !== undefined} onClose={onClose} title={text.title} width={640} destroyOnHidden>
      <Typography.Paragraph type="secondary">{text.intro}</Typography.Paragraph>
      {!canEdit && <Alert type="info" showIcon message={text.readOnly} style={{ marginBottom: 16 }} />}
      <Flex align="center" gap={8} style={{ marginBottom: 16 }}>
        <Typography.Text id="cal-availability-target">{text.calendar}</Typography.Text>
        <Select
          aria-labelledby="cal-availability-target"
          value={target ?? ORGANISATION_CALENDAR}
          onChange={onTarget}
          options={[{ value: ORGANISATION_CALENDAR, label: text.organisationDefault }, ...agents.map((agent) => ({ value: agent.id, label: agent.agent_name }))]}
          style={{ minWidth: 240 }}
        />
      </Flex>
      {body}
    </Drawer>
  );
}
