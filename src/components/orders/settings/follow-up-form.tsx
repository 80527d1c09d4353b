import { Alert, Button, Flex, Form, InputNumber, Select, Switch, Typography } from "antd";
import { useMemo, useState } from "react";
import { DEFAULT_ORG_CONCURRENT_CALLS } from "../../../../contract/campaign-shared";
import type { FollowUpSettings, FollowUpSettingsInput } from "../../../../contract/order";
import { ATTRIBUTION_DAYS_MAX, FOLLOW_UP_DELAY_MAX_MINUTES } from "../../../../contract/order-shared";
import { DEFAULT_TIME_ZONE } from "../../../../contract/time-zone-name";
import { useAgentList } from "../../../hooks/use-agent-list";
import { zoneNames } from "../../../lib/time-zones";
import type { ApiError } from "../../../providers/data/fetch-wrapper";
import { usePhoneNumbers } from "../../campaigns/campaign-form/basics-step";
import { CallingStep } from "../../campaigns/campaign-form/calling-step";
import type { Editable } from "../../campaigns/campaign-form/editable";
import type { WindowValue } from "../../campaigns/campaign-form/form-values";
import { NextOpening, WindowList } from "../../campaigns/campaign-form/schedule-step";
import { formatPhoneNumber } from "../../phone-numbers/format-number";
import { FOLLOW_UP_PRESETS, formValuesOf, readableDetail, settingsBody, windowsOutsideCallingHours, type FollowUpFormValues, type FollowUpPreset } from "./follow-up-values";
import { ordersSettingsText } from "./strings";
import "../../campaigns/campaigns.css";
import "./settings.css";

const text = ordersSettingsText.followUp;

/** The rules every follow-up keeps to (contract/calling-rules.ts), shown above the settings. */
export function ConsentRules() {
  return (
    <Alert
      type="info"
      showIcon
      className="orders-settings__rules"
      message={text.rulesTitle}
      description={
        <>
          <p className="orders-settings__rules-body">{text.rulesBody}</p>
          <ul className="orders-settings__rules-list">
            {text.rulesList.map((rule) => (
              <li key={rule}>{rule}</li>
            ))}
          </ul>
          <Typography.Text type="secondary" className="orders-settings__rules-source">
            {text.rulesSource}
          </Typography.Text>
        </>
      }
    />
  );
}

function StateTag({ settings }: { settings: FollowUpSettings }) {
  const label = settings.state === "running" ? text.stateRunning : settings.state === "paused" ? text.statePaused : text.stateOff;
  return <span className={`orders-settings__state orders-settings__state--${settings.state}`}>{label}</span>;
}

export interface FollowUpFormProps {
  /** What the form opens with (the server's answer, or the organisation's for an integration's own). */
  settings: FollowUpSettings;
  canManage: boolean;
  /** Sends the body; resolves to the saved settings, rejects with the ApiError (nothing changed). */
  save: (body: FollowUpSettingsInput) => Promise<FollowUpSettings>;
  onSaved: (saved: FollowUpSettings) => void;
  formId: string;
}

/**
 * The follow-up settings: on or off, agent, caller number, the delay after abandonment, the calling
 * windows (inside the calling hours) with the fallback zone, calls at once and retries, the attribution
 * window. A refused save shows the server's sentence, each field named as the form names it.
 */
export function FollowUpForm({ settings, canManage, save, onSaved, formId }: FollowUpFormProps) {
  const [form] = Form.useForm<FollowUpFormValues>();
  const [initialValues] = useState(() => formValuesOf(settings));
  const [error, setError] = useState<string[] | null>(null);
  const { agents, isLoading: agentsLoading } = useAgentList();
  const { numbers, isLoading: numbersLoading } = usePhoneNumbers();
  const enabled = Form.useWatch("enabled", form) as boolean | undefined;
  const windows = Form.useWatch("windows", form) as WindowValue[] | undefined;
  const fallback = Form.useWatch("fallback_timezone", form) as string | null | undefined;
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || DEFAULT_TIME_ZONE;
  const zones = useMemo(() => zoneNames(browserZone).map((zone) => ({ value: zone, label: zone })), [browserZone]);
  const editable: Editable = { can: () => canManage, reason: () => undefined };
  const disabled = !canManage;

  const applyPreset = (preset: FollowUpPreset) => {
    form.setFieldValue("windows", FOLLOW_UP_PRESETS[preset].map((window) => ({ ...window, days: [...window.days] })));
    void form.validateFields([["windows"]]).catch(() => undefined);
  };

  const submit = async (values: FollowUpFormValues) => {
    setError(null);
    try {
      const saved = await save(settingsBody({ ...initialValues, ...values }));
      form.setFieldsValue(formValuesOf(saved));
      onSaved(saved);
    } catch (caught) {
      const failure = caught as ApiError | undefined;
      setError(readableDetail(failure?.detail ?? failure?.message ?? ""));
    }
  };

  return (
    <Form<FollowUpFormValues>
      id={formId}
      form={form}
      layout="vertical"
      initialValues={initialValues}
      disabled={disabled}
      className="orders-settings__form"
      scrollToFirstError
      onFinish={(values) => void submit(values)}
      onValuesChange={(changed: Partial<FollowUpFormValues>) => {
        if (changed.windows) void form.validateFields([["windows"]]).catch(() => undefined);
        if (changed.enabled !== undefined) void form.validateFields(["agent_id", "phone_number_id"]).catch(() => undefined);
      }}
    >
      {error && (
        <Alert
          type="error"
          showIcon
          role="alert"
          className="orders-settings__error"
          message={text.saveFailed}
          description={
            <>
              {error.filter(Boolean).length > 0 && (
                <ul className="orders-settings__error-list">
                  {error.filter(Boolean).map((clause) => (
                    <li key={clause}>{clause}</li>
                  ))}
                </ul>
              )}
              <div>{text.saveFailedHint}</div>
            </>
          }
        />
      )}
      {settings.state === "paused" && <Alert type="warning" showIcon className="orders-settings__error" message={text.pausedTitle} description={text.pausedBody(settings.pause_reason)} />}
      {!canManage && <Typography.Paragraph type="secondary">{ordersSettingsText.adminOnly}</Typography.Paragraph>}

      <Flex align="center" gap={12} wrap className="orders-settings__switch">
        <Form.Item name="enabled" valuePropName="checked" label={text.enabled} extra={enabled ? text.enabledOn : text.enabledOff} style={{ marginBottom: 0, flex: "0 1 auto" }}>
          <Switch />
        </Form.Item>
        <StateTag settings={settings} />
      </Flex>

      <Flex wrap gap="0 16px">
        <Form.Item
          name="agent_id"
          label={text.agent}
          extra={text.agentHint}
          style={{ flex: "1 1 260px", minWidth: 0 }}
          rules={[({ getFieldValue }) => ({ validator: async (_, value) => { if (getFieldValue("enabled") && !value) throw new Error(text.agentRequired); } })]}
        >
          <Select
            allowClear
            showSearch
            optionFilterProp="label"
            placeholder={text.agentPlaceholder}
            loading={agentsLoading}
            options={[
              ...agents.map((agent) => ({ value: agent.id, label: agent.agent_name })),
              // The saved agent, until the list has come (or when it is not in the first page).
              ...(settings.agent_id && settings.agent_name && !agents.some((agent) => agent.id === settings.agent_id) ? [{ value: settings.agent_id, label: settings.agent_name }] : []),
            ]}
          />
        </Form.Item>
        <Form.Item
          name="phone_number_id"
          label={text.number}
          extra={!numbersLoading && numbers.length === 0 ? text.noNumbers : text.numberHint}
          style={{ flex: "1 1 260px", minWidth: 0 }}
          rules={[({ getFieldValue }) => ({ validator: async (_, value) => { if (getFieldValue("enabled") && !value) throw new Error(text.numberRequired); } })]}
        >
          <Select
            allowClear
            showSearch
            optionFilterProp="label"
            placeholder={text.numberPlaceholder}
            loading={numbersLoading}
            options={[
              ...numbers.map((number) => ({ value: number.id, label: `${number.name} (${formatPhoneNumber(number.number)})` })),
              ...(settings.phone_number_id && settings.phone_number && !numbers.some((number) => number.id === settings.phone_number_id)
                ? [{ value: settings.phone_number_id, label: formatPhoneNumber(settings.phone_number) }]
                : []),
            ]}
          />
        </Form.Item>
      </Flex>

      <Form.Item
        name="abandon_delay"
        label={text.delay}
        extra={text.delayHint(FOLLOW_UP_DELAY_MAX_MINUTES)}
        rules={[{ required: true, type: "integer", min: 0, max: FOLLOW_UP_DELAY_MAX_MINUTES, message: text.delayHint(FOLLOW_UP_DELAY_MAX_MINUTES) }]}
      >
        <InputNumber min={0} max={FOLLOW_UP_DELAY_MAX_MINUTES} precision={0} suffix={text.delayUnit} style={{ width: 200 }} />
      </Form.Item>

      <Typography.Title level={5}>{text.windowsTitle}</Typography.Title>
      <Typography.Paragraph type="secondary">{text.windowsHint}</Typography.Paragraph>
      <Flex wrap gap={8} align="center" style={{ marginBottom: 12 }} role="group" aria-label={text.presets}>
        <Typography.Text type="secondary">{text.presets}:</Typography.Text>
        {(Object.keys(FOLLOW_UP_PRESETS) as FollowUpPreset[]).map((preset) => (
          <Button key={preset} size="small" onClick={() => applyPreset(preset)}>
            {text.presetNames[preset]}
          </Button>
        ))}
      </Flex>
      <WindowList
        disabled={disabled}
        validate={(windows) => {
          if (windows.length === 0) return text.windowsRequired;
          const outside = windowsOutsideCallingHours(windows);
          return outside.length ? outside.join(" ") : null;
        }}
      />
      <NextOpening windows={windows} zone={fallback || browserZone} />

      <Typography.Title level={5}>{text.timezoneTitle}</Typography.Title>
      <Typography.Paragraph style={{ marginBottom: 4 }}>{text.timezoneIntro}</Typography.Paragraph>
      <ol className="campaign-policy">
        {text.timezoneSteps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      <Form.Item name="fallback_timezone" label={text.fallback} extra={text.fallbackHint}>
        <Select allowClear showSearch placeholder={text.fallbackPlaceholder} options={zones} style={{ maxWidth: 320 }} />
      </Form.Item>

      <Typography.Title level={5}>{text.retriesTitle}</Typography.Title>
      <Typography.Paragraph type="secondary">{text.retriesHint}</Typography.Paragraph>
      <CallingStep editable={editable} concurrencyLimit={Math.max(DEFAULT_ORG_CONCURRENT_CALLS, settings.max_concurrency)} />

      <Form.Item
        name="attribution_days"
        label={text.attribution}
        extra={text.attributionHint(ATTRIBUTION_DAYS_MAX)}
        rules={[{ required: true, type: "integer", min: 1, max: ATTRIBUTION_DAYS_MAX, message: text.attributionHint(ATTRIBUTION_DAYS_MAX) }]}
      >
        <InputNumber min={1} max={ATTRIBUTION_DAYS_MAX} precision={0} suffix={text.attributionUnit} style={{ width: 200 }} />
      </Form.Item>
    </Form>
  );
}
