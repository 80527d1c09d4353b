import { useList } from "@refinedev/core";
import { Form, Input, Select } from "antd";
import { Link } from "react-router";
import { CAMPAIGN_NAME_MAX_LENGTH } from "../../../../contract/campaign-shared";
import type { PhoneNumber } from "../../../../contract/phone-number";
import { strings } from "../../../config/strings";
import { useAgentList } from "../../../hooks/use-agent-list";
import { formatPhoneNumber } from "../../phone-numbers/format-number";
import type { Editable } from "./editable";

const text = strings.campaigns.form;

/** The organisation's numbers (GET /phonenumber/), for the caller-number picker. */
export function usePhoneNumbers() {
  const { result, query } = useList<PhoneNumber>({ resource: "phonenumber", pagination: { currentPage: 1, pageSize: 100 }, errorNotification: false });
  return { numbers: result.data, isLoading: query.isPending };
}

/** Name, agent and caller number. The last two may wait (a draft without them cannot start). */
export function BasicsStep({ editable }: { editable: Editable }) {
  const { agents, isLoading: agentsLoading } = useAgentList();
  const { numbers, isLoading: numbersLoading } = usePhoneNumbers();
  return (
    <>
      <Form.Item name="name" label={text.name} rules={[{ required: true, whitespace: true, message: text.nameRequired }]} extra={editable.reason("name")}>
        <Input placeholder={text.namePlaceholder} maxLength={CAMPAIGN_NAME_MAX_LENGTH} disabled={!editable.can("name")} />
      </Form.Item>
      <Form.Item name="agent_id" label={text.agent} extra={editable.reason("agent_id") ?? text.agentHint}>
        <Select
          allowClear
          showSearch
          optionFilterProp="label"
          placeholder={text.agentPlaceholder}
          loading={agentsLoading}
          disabled={!editable.can("agent_id")}
          options={agents.map((agent) => ({ value: agent.id, label: agent.agent_name }))}
        />
      </Form.Item>
      <Form.Item
        name="phone_number_id"
        label={text.number}
        extra={
          editable.reason("phone_number_id") ??
          (!numbersLoading && numbers.length === 0 ? (
            <Link to="/phone-numbers">{text.noNumbers}</Link>
          ) : (
            text.numberHint
          ))
        }
      >
        <Select
          allowClear
          showSearch
          optionFilterProp="label"
          placeholder={text.numberPlaceholder}
          loading={numbersLoading}
          disabled={!editable.can("phone_number_id")}
          options={numbers.map((number) => ({ value: number.id, label: `${number.name} (${formatPhoneNumber(number.number)})` }))}
        />
      </Form.Item>
    </>
  );
}
