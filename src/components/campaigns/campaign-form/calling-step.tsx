import { Checkbox, Flex, Form, InputNumber } from "antd";
import { DEFAULT_ORG_CONCURRENT_CALLS, RETRY_DELAY_MAX_MINUTES, RETRY_MAX_ATTEMPTS, RETRY_OUTCOMES } from "../../../../contract/campaign-shared";
import { strings } from "../../../config/strings";
import type { Editable } from "./editable";
import type { CampaignFormValues } from "./form-values";

const text = strings.campaigns.form;

/**
 * How many calls at once (up to the organisation's limit), and the retries: how many, how far apart, on which outcomes.
 * For a campaign already started, the hints say what saving does to the contacts waiting for a retry (server/campaigns/settle.ts reviewWaitingRetries).
 */
export function CallingStep({ editable, concurrencyLimit }: { editable: Editable; concurrencyLimit: number | undefined }) {
  const limit = concurrencyLimit ?? DEFAULT_ORG_CONCURRENT_CALLS;
  const attempts = Form.useWatch("max_attempts", Form.useFormInstance<CampaignFormValues>());
  const retryLocked = !editable.can("retry");
  const noRetries = attempts === 1;
  return (
    <>
      <Form.Item
        name="max_concurrency"
        label={text.concurrency}
        extra={editable.reason("max_concurrency") ?? text.concurrencyHint(limit)}
        rules={[{ required: true, type: "integer", min: 1, max: limit, message: text.concurrencyHint(limit) }]}
      >
        <InputNumber min={1} max={limit} precision={0} disabled={!editable.can("max_concurrency")} />
      </Form.Item>
      <Flex wrap gap={16}>
        <Form.Item
          name="max_attempts"
          label={text.maxAttempts}
          extra={editable.reason("retry") ?? (editable.retriesWaiting ? text.maxAttemptsLiveHint(RETRY_MAX_ATTEMPTS) : text.maxAttemptsHint(RETRY_MAX_ATTEMPTS))}
          rules={[{ required: true, type: "integer", min: 1, max: RETRY_MAX_ATTEMPTS, message: text.maxAttemptsHint(RETRY_MAX_ATTEMPTS) }]}
          style={{ flex: "1 1 220px" }}
        >
          <InputNumber min={1} max={RETRY_MAX_ATTEMPTS} precision={0} disabled={retryLocked} />
        </Form.Item>
        <Form.Item
          name="delay_minutes"
          label={text.delayMinutes}
          extra={editable.retriesWaiting && !retryLocked ? text.delayLiveHint : text.delayHint}
          rules={[{ required: true, type: "integer", min: 0, max: RETRY_DELAY_MAX_MINUTES, message: text.delayHint }]}
          style={{ flex: "1 1 220px" }}
        >
          <InputNumber min={0} max={RETRY_DELAY_MAX_MINUTES} precision={0} disabled={retryLocked || noRetries} />
        </Form.Item>
      </Flex>
      <Form.Item name="retry_on" label={text.retryOn}>
        <Checkbox.Group options={RETRY_OUTCOMES.map((outcome) => ({ value: outcome, label: strings.campaigns.retryOutcomes[outcome] }))} disabled={retryLocked || noRetries} />
      </Form.Item>
    </>
  );
}
