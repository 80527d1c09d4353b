import { DeleteOutlined, PlusOutlined } from "@ant-design/icons";
import { Button, Checkbox, DatePicker, Flex, Form, Input, Select, Space, Typography } from "antd";
import { useMemo } from "react";
import { nextOpening } from "../../../../contract/campaign-schedule";
import { CAMPAIGN_WINDOWS_MAX, WEEKDAYS, WINDOW_END_PATTERN, WINDOW_TIME_PATTERN } from "../../../../contract/campaign-shared";
import { DEFAULT_TIME_ZONE } from "../../../../contract/time-zone-name";
import { strings } from "../../../config/strings";
import { zoneNames } from "../../../lib/time-zones";
import { formatRelative } from "../campaign-format";
import type { Editable } from "./editable";
import { isValidWindow, isWindowEnd, isWindowStart, minutesOf, WINDOW_PRESETS, type CampaignFormValues, type WindowPreset, type WindowValue } from "./form-values";

const text = strings.campaigns.form;
const weekdays = strings.campaigns.weekdays;

const DAY_OPTIONS = WEEKDAYS.map((day) => ({ value: day, label: <span aria-label={strings.campaigns.weekdayNames[day]}>{weekdays[day]}</span> }));

/** "Mon 09:00" in `zone`. */
function localTime(instant: number, zone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(instant);
}

/**
 * The form's `windows` list: one WindowFields each, the list's error (role alert while there is one), and Add
 * window (a weekday 09:00–17:00 window, up to CAMPAIGN_WINDOWS_MAX). Shared by the campaign form and the order
 * follow-up settings; `validate` says what is wrong with the whole list (null when nothing is).
 */
export function WindowList({ disabled, validate }: { disabled: boolean; validate: (windows: WindowValue[]) => string | null }) {
  return (
    <Form.List
      name="windows"
      rules={[
        {
          validator: async (_, value: WindowValue[] | undefined) => {
            const problem = validate(value ?? []);
            if (problem) throw new Error(problem);
          },
        },
      ]}
    >
      {(fields, { add, remove }, { errors }) => (
        <>
          {fields.map((field, index) => (
            <WindowFields key={field.key} name={field.name} index={index} disabled={disabled} onRemove={fields.length > 1 ? () => remove(field.name) : undefined} />
          ))}
          <div className="campaign-window-errors" role={errors.length ? "alert" : undefined}>
            <Form.ErrorList errors={errors} />
          </div>
          <Space wrap style={{ margin: "4px 0 8px" }}>
            <Button icon={<PlusOutlined />} disabled={disabled || fields.length >= CAMPAIGN_WINDOWS_MAX} onClick={() => add(structuredClone(WINDOW_PRESETS.weekdays[0]!))}>
              {text.addWindow}
            </Button>
            {fields.length >= CAMPAIGN_WINDOWS_MAX && <Typography.Text type="secondary">{text.maxWindows(CAMPAIGN_WINDOWS_MAX)}</Typography.Text>}
          </Space>
        </>
      )}
    </Form.List>
  );
}

/** Where the windows stand now in one zone: open, or when they next open (contract/campaign-schedule.ts). */
export function NextOpening({ windows, zone }: { windows: WindowValue[] | undefined; zone: string }) {
  const key = JSON.stringify(windows ?? []);
  const sentence = useMemo(() => {
    const valid = (JSON.parse(key) as WindowValue[]).filter(isValidWindow);
    if (valid.length === 0) return null;
    const now = Date.now();
    const next = nextOpening(valid, [zone], now);
    if (next === null) return null;
    return next <= now ? text.openNow(zone) : text.nextOpening(zone, `${localTime(next, zone)} (${formatRelative(new Date(next).toISOString(), now)})`);
  }, [key, zone]);
  return sentence ? <Typography.Paragraph type="secondary">{sentence}</Typography.Paragraph> : null;
}

/** One window: its days, from, until (24:00 for the end of the day; the end after the start). */
export function WindowFields({ name, index, disabled, onRemove }: { name: number; index: number; disabled: boolean; onRemove?: () => void }) {
  return (
    <div className="campaign-window" role="group" aria-label={text.window(index + 1)}>
      <Form.Item name={[name, "days"]} label={text.days} className="campaign-window__days" rules={[{ required: true, type: "array", min: 1, message: text.daysRequired }]}>
        <Checkbox.Group options={DAY_OPTIONS} disabled={disabled} />
      </Form.Item>
      <Form.Item name={[name, "start"]} label={text.start} className="campaign-window__time" rules={[{ required: true, pattern: WINDOW_TIME_PATTERN, message: text.timeInvalid }]}>
        <Input placeholder="09:00" maxLength={5} inputMode="numeric" autoComplete="off" disabled={disabled} />
      </Form.Item>
      <Form.Item
        name={[name, "end"]}
        label={text.end}
        className="campaign-window__time"
        dependencies={[["windows", name, "start"]]}
        rules={[
          { required: true, pattern: WINDOW_END_PATTERN, message: text.endInvalid },
          ({ getFieldValue }) => ({
            validator: async (_, value: string | undefined) => {
              const start = getFieldValue(["windows", name, "start"]) as string | undefined;
              if (value && start && isWindowStart(start) && isWindowEnd(value) && minutesOf(value) <= minutesOf(start)) throw new Error(text.endAfterStart);
            },
          }),
        ]}
      >
        <Input placeholder="17:00" maxLength={5} inputMode="numeric" autoComplete="off" disabled={disabled} />
      </Form.Item>
      {onRemove && <Button className="campaign-window__remove" type="text" danger icon={<DeleteOutlined />} aria-label={text.removeWindow(index + 1)} onClick={onRemove} disabled={disabled} />}
    </div>
  );
}

/**
 * The weekly calling windows (presets, or several windows of days and hours), the time-zone policy
 * with its fallback zone, and an optional start and stop time.
 */
export function ScheduleStep({ editable }: { editable: Editable }) {
  const form = Form.useFormInstance<CampaignFormValues>();
  const disabled = !editable.can("schedule");
  const windows = Form.useWatch("windows", form) as WindowValue[] | undefined;
  const fallback = Form.useWatch("fallback_timezone", form) as string | null | undefined;
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || DEFAULT_TIME_ZONE;
  const zones = useMemo(() => zoneNames(browserZone).map((zone) => ({ value: zone, label: zone })), [browserZone]);

  const applyPreset = (preset: WindowPreset) => {
    form.setFieldValue("windows", WINDOW_PRESETS[preset].map((window) => ({ ...window, days: [...window.days] })));
    void form.validateFields([["windows"]]).catch(() => undefined);
  };

  return (
    <>
      <Typography.Title level={5}>{text.windows}</Typography.Title>
      <Typography.Paragraph type="secondary">{text.windowsHint}</Typography.Paragraph>
      {editable.reason("schedule") && <Typography.Paragraph type="warning">{editable.reason("schedule")}</Typography.Paragraph>}
      <Flex wrap gap={8} align="center" style={{ marginBottom: 12 }} role="group" aria-label={text.presets}>
        <Typography.Text type="secondary">{text.presets}:</Typography.Text>
        {(Object.keys(WINDOW_PRESETS) as WindowPreset[]).map((preset) => (
          <Button key={preset} size="small" onClick={() => applyPreset(preset)} disabled={disabled}>
            {text.presetNames[preset]}
          </Button>
        ))}
      </Flex>
      <WindowList disabled={disabled} validate={(windows) => (windows.length === 0 ? text.windowsRequired : null)} />
      <NextOpening windows={windows} zone={fallback || browserZone} />

      <Typography.Title level={5}>{text.timezonePolicy}</Typography.Title>
      <Typography.Paragraph style={{ marginBottom: 4 }}>{text.timezonePolicyIntro}</Typography.Paragraph>
      <ol className="campaign-policy">
        {text.timezonePolicySteps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      <Form.Item name="fallback_timezone" label={text.fallback} extra={text.timezonePolicyNone}>
        <Select allowClear showSearch placeholder={text.fallbackPlaceholder} options={zones} disabled={disabled} style={{ maxWidth: 320 }} />
      </Form.Item>
      <Flex wrap gap={16}>
        <Form.Item name="start_at" label={text.startAt} extra={text.startAtHint} style={{ flex: "1 1 240px" }}>
          <DatePicker showTime={{ format: "HH:mm" }} format="YYYY-MM-DD HH:mm" disabled={disabled} style={{ width: "100%" }} />
        </Form.Item>
        <Form.Item
          name="end_at"
          label={text.endAt}
          extra={text.endAtHint}
          style={{ flex: "1 1 240px" }}
          dependencies={["start_at"]}
          rules={[
            ({ getFieldValue }) => ({
              validator: async (_, value: { isAfter: (other: unknown) => boolean } | null | undefined) => {
                const start = getFieldValue("start_at") as unknown;
                if (value && start && !value.isAfter(start)) throw new Error(text.endAtAfterStart);
              },
            }),
          ]}
        >
          <DatePicker showTime={{ format: "HH:mm" }} format="YYYY-MM-DD HH:mm" disabled={disabled} style={{ width: "100%" }} />
        </Form.Item>
      </Flex>
    </>
  );
}
