import { Alert, Descriptions, Form } from "antd";
import type { Campaign } from "../../../../contract/campaign";
import { strings } from "../../../config/strings";
import { useAgentList } from "../../../hooks/use-agent-list";
import { formatPhoneNumber } from "../../phone-numbers/format-number";
import { formatCount, formatInstant, formatWindows } from "../campaign-format";
import { usePhoneNumbers } from "./basics-step";
import type { CampaignFormValues } from "./form-values";

const text = strings.campaigns.form;
const detail = strings.campaigns.detail;

/** What a draft lacks before it can start: an agent, a caller number, contacts. */
export function missingToStart(values: Pick<Partial<CampaignFormValues>, "agent_id" | "phone_number_id">, campaign: Campaign): string[] {
  return [
    ...(values.agent_id ? [] : [text.missingAgent]),
    ...(values.phone_number_id ? [] : [text.missingNumber]),
    ...(campaign.counts.total > 0 ? [] : [text.missingContacts]),
  ];
}

/** Everything the campaign will do, as it will be saved. */
export function ReviewStep({ campaign }: { campaign: Campaign }) {
  const form = Form.useFormInstance<CampaignFormValues>();
  const values = form.getFieldsValue(true) as CampaignFormValues;
  const { agents } = useAgentList();
  const { numbers } = usePhoneNumbers();
  const agent = agents.find((candidate) => candidate.id === values.agent_id);
  const number = numbers.find((candidate) => candidate.id === values.phone_number_id);
  const missing = campaign.status === "draft" ? missingToStart(values, campaign) : [];
  const outcomes = values.retry_on.map((outcome) => strings.campaigns.retryOutcomes[outcome].toLowerCase()).join(", ");

  return (
    <>
      {missing.length > 0 && <Alert type="info" showIcon style={{ marginBottom: 16 }} message={`${text.missingToStart} ${missing.join(", ")}.`} />}
      <Descriptions
        title={text.summary}
        bordered
        size="small"
        column={1}
        items={[
          { key: "name", label: text.name, children: values.name },
          { key: "agent", label: text.agent, children: agent?.agent_name ?? (values.agent_id ? "…" : "—") },
          { key: "number", label: text.number, children: number ? `${number.name} (${formatPhoneNumber(number.number)})` : values.phone_number_id ? "…" : "—" },
          { key: "contacts", label: text.contacts, children: formatCount(campaign.counts.total) },
          { key: "windows", label: detail.schedule, children: formatWindows(values.windows) },
          { key: "fallback", label: text.fallback, children: values.fallback_timezone || text.fallbackNone },
          { key: "start", label: text.startAt, children: values.start_at ? formatInstant(values.start_at.toISOString()) : text.startAtNone },
          { key: "end", label: text.endAt, children: values.end_at ? formatInstant(values.end_at.toISOString()) : text.endAtNone },
          { key: "concurrency", label: text.concurrency, children: values.max_concurrency },
          { key: "retries", label: detail.retries, children: detail.retriesValue(values.max_attempts, values.delay_minutes, outcomes) },
        ]}
      />
    </>
  );
}
