import { StarFilled } from "@ant-design/icons";
import { Button, Empty, Space, Table, Tag, Tooltip, Typography, type TableProps } from "antd";
import type { Agent } from "../../../contract/agent";
import type { PhoneNumber } from "../../../contract/phone-number";
import { strings } from "../../config/strings";
import { useShell } from "../layout/shell-context";
import { listEmptyText } from "../list-load-error";
import { formatPhoneNumber } from "./format-number";

const text = strings.phoneNumbers;

export interface PhoneNumberActions {
  onEdit?: (record: PhoneNumber) => void;
  onMakeDefault?: (record: PhoneNumber) => void;
  /** Absent for roles that may not delete numbers (members). */
  onDelete?: (record: PhoneNumber) => void;
  onAdd?: () => void;
}

/** The numbers: name with the default badge, the number for reading (E.164 to copy), provider, answering agent. */
export function PhoneNumberTable({
  tableProps,
  agents,
  actions,
  loaded,
}: {
  tableProps: TableProps<PhoneNumber>;
  agents: Agent[];
  actions: PhoneNumberActions;
  /** The list has loaded: until then (failed, or asked again) the table does not claim there are no numbers. */
  loaded: boolean;
}) {
  const agentName = new Map(agents.map((agent) => [agent.id, agent.agent_name]));
  // On a phone a row is one column, all in sight without scrolling sideways: the name, the number, the agent that
  // answers it and the actions (make default, edit, delete); the provider is left to the desktop.
  const { narrow } = useShell();
  const agent = (record: PhoneNumber) =>
    record.agent_id ? (agentName.get(record.agent_id) ?? "…") : <Typography.Text type="secondary">{text.noAgent}</Typography.Text>;
  const buttons = (record: PhoneNumber) => (
    <Space size={4} wrap>
      {actions.onMakeDefault && !record.isDefault && (
        <Button size="small" onClick={() => actions.onMakeDefault?.(record)} aria-label={`${text.makeDefault} ${record.name}`}>
          {text.makeDefault}
        </Button>
      )}
      {actions.onEdit && (
        <Button size="small" onClick={() => actions.onEdit?.(record)} aria-label={`${text.edit} ${record.name}`}>
          {text.edit}
        </Button>
      )}
      {actions.onDelete && (
        <Button size="small" danger onClick={() => actions.onDelete?.(record)} aria-label={`${text.delete} ${record.name}`}>
          {text.delete}
        </Button>
      )}
    </Space>
  );
  const number = (record: PhoneNumber) => (
    <Tooltip title={record.number}>
      <Typography.Text copyable={{ text: record.number, tooltips: [text.copy, record.number] }}>{formatPhoneNumber(record.number)}</Typography.Text>
    </Tooltip>
  );
  return (
    <Table<PhoneNumber>
      {...tableProps}
      rowKey="id"
      // Columns keep their content's width (a number on one line) on a desktop; a phone's single column fits.
      scroll={narrow ? undefined : { x: "max-content" }}
      locale={{
        emptyText: listEmptyText(
          loaded,
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={<><strong>{text.emptyTitle}</strong><br />{text.emptyBody}</>}>
            {actions.onAdd && (
              <Button type="primary" onClick={actions.onAdd}>
                {text.add}
              </Button>
            )}
          </Empty>,
        ),
      }}
    >
      <Table.Column<PhoneNumber>
        title={text.columns.name}
        dataIndex="name"
        render={(_, record) => {
          const name = (
            <Space size={6} wrap>
              <span>{record.name}</span>
              {record.isDefault && (
                <Tag color="blue" icon={<StarFilled />}>
                  {text.defaultBadge}
                </Tag>
              )}
              {record.is_sandbox && (
                <Tooltip title={text.sandboxHint}>
                  <Tag color="gold">{text.sandbox}</Tag>
                </Tooltip>
              )}
            </Space>
          );
          return narrow ? (
            <Space direction="vertical" size={4}>
              {name}
              <span className="phone-numbers__row-number">{number(record)}</span>
              <span>
                {text.columns.agent}: {agent(record)}
              </span>
              {buttons(record)}
            </Space>
          ) : (
            name
          );
        }}
      />
      {!narrow && <Table.Column<PhoneNumber> title={text.columns.number} dataIndex="number" render={(_, record) => number(record)} />}
      {!narrow && <Table.Column<PhoneNumber> title={text.columns.provider} dataIndex="provider" render={(_, record) => text.providers[record.provider] ?? record.provider} />}
      {!narrow && <Table.Column<PhoneNumber> title={text.columns.agent} dataIndex="agent_id" render={(_, record) => agent(record)} />}
      {!narrow && <Table.Column<PhoneNumber> title={text.actions} key="actions" align="right" render={(_, record) => buttons(record)} />}
    </Table>
  );
}
