import { getDefaultSortOrder } from "@refinedev/antd";
import type { CrudSort } from "@refinedev/core";
import { Button, Empty, Flex, Table, Tag, Typography, type TableProps } from "antd";
import { SANDBOX_CALL_LABEL, type CallStatus } from "../../../contract/call";
import type { CallOutcome } from "../../../contract/call-outcome";
import { strings } from "../../config/strings";
import { useShell } from "../layout/shell-context";
import { listEmptyText } from "../list-load-error";
import { formatCost, formatDateTime, formatDuration, type CallListItem } from "./call-format";
import { SuccessEvaluation, useAgentRubrics } from "./success-evaluation-tag";

const text = strings.callLogs;
const columns = text.columns;

const STATUS_COLOR: Record<CallStatus, string> = {
  queued: "default",
  ringing: "gold",
  "in-progress": "processing",
  forwarding: "cyan",
  ended: "green",
};

/** Tag colours of the outcomes (contract/call-outcome.ts); the dashboard's chart has its own from the theme. */
const OUTCOME_COLOR: Record<CallOutcome, string> = {
  answered: "green",
  busy: "gold",
  no_answer: "default",
  voicemail: "purple",
  failed: "red",
  in_progress: "processing",
};

const CallStatusTag = ({ status }: { status: CallStatus }) => <Tag color={STATUS_COLOR[status]}>{status}</Tag>;
const CallOutcomeTag = ({ outcome }: { outcome: CallOutcome | undefined }) => (outcome ? <Tag color={OUTCOME_COLOR[outcome]}>{text.outcomes[outcome]}</Tag> : null);

/** The calls of the current page; a row (or its start time, for the keyboard) opens the call. */
export function CallTable({
  tableProps,
  sorters,
  filtered,
  loaded,
  onOpen,
}: {
  tableProps: TableProps<CallListItem>;
  sorters: CrudSort[];
  filtered: boolean;
  /** The list has loaded: until then (failed, or asked again) the table claims neither "no calls yet" nor "none match". */
  loaded: boolean;
  onOpen: (id: string) => void;
}) {
  const rubricOf = useAgentRubrics();
  const agentOf = (call: CallListItem) => call.agent_name ?? (call.agent_id ? text.unknownAgent : "—");
  // On a phone a row is one column, all in sight without scrolling sideways: when (the link that opens it), whose
  // call (customer), which agent, how long and what it cost, its status and outcome; the rest is in its drawer.
  const { narrow } = useShell();
  return (
    <Table<CallListItem>
      {...tableProps}
      rowKey="id"
      size="middle"
      scroll={narrow ? undefined : { x: 1200 }}
      onRow={(call) => ({ onClick: () => onOpen(call.id), className: "call-logs__row" })}
      locale={{ emptyText: listEmptyText(loaded, <Empty description={filtered ? text.emptyFiltered : text.empty} />) }}
    >
      <Table.Column<CallListItem>
        dataIndex="started_at"
        title={columns.started}
        sorter
        sortOrder={getDefaultSortOrder("started_at", sorters)}
        render={(value: string, call) => (
          <Flex gap={4} align="center" wrap>
            <Button type="link" size="small" className="call-logs__open" aria-label={text.openCall(call.id)} onClick={(event) => { event.stopPropagation(); onOpen(call.id); }}>
              {formatDateTime(value)}
            </Button>
            {call.is_sandbox && <Tag color="purple">{SANDBOX_CALL_LABEL}</Tag>}
            {narrow && (
              <Flex vertical gap={2} className="call-logs__row-facts">
                <Typography.Text>
                  {[call.customer_name, call.customer_number].filter(Boolean).join(" · ") || "—"}
                </Typography.Text>
                <Typography.Text type="secondary">
                  {[agentOf(call), formatDuration(call.duration_seconds), formatCost(call.cost)].join(" · ")}
                </Typography.Text>
                <Flex gap={4} wrap className="call-logs__row-status">
                  <CallStatusTag status={call.status} />
                  <CallOutcomeTag outcome={call.outcome} />
                </Flex>
              </Flex>
            )}
          </Flex>
        )}
      />
      {!narrow && <Table.Column<CallListItem> dataIndex="agent_name" title={columns.agent} render={(_, call) => agentOf(call)} />}
      {!narrow && (
        <Table.Column<CallListItem>
          key="customer"
          title={columns.customer}
          render={(_, call) => (
            <Flex vertical>
              <Typography.Text>{call.customer_name || "—"}</Typography.Text>
              {call.customer_number && <Typography.Text type="secondary">{call.customer_number}</Typography.Text>}
            </Flex>
          )}
        />
      )}
      {!narrow && <Table.Column<CallListItem> dataIndex="type" title={columns.type} render={(value: string) => <Tag>{value}</Tag>} />}
      {!narrow && <Table.Column<CallListItem> dataIndex="status" title={columns.status} render={(value: CallStatus) => <CallStatusTag status={value} />} />}
      {!narrow && (
        <Table.Column<CallListItem>
          dataIndex="outcome"
          title={columns.outcome}
          render={(value: CallOutcome | undefined) => (value ? <CallOutcomeTag outcome={value} /> : "—")}
        />
      )}
      {!narrow && (
        <Table.Column<CallListItem>
          dataIndex="duration_seconds"
          title={columns.duration}
          sorter
          sortOrder={getDefaultSortOrder("duration_seconds", sorters)}
          render={(value: number | null) => formatDuration(value)}
        />
      )}
      {!narrow && (
        <Table.Column<CallListItem>
          dataIndex="cost"
          title={columns.cost}
          sorter
          sortOrder={getDefaultSortOrder("cost", sorters)}
          render={(value: number | null) => formatCost(value)}
        />
      )}
      {!narrow && <Table.Column<CallListItem> dataIndex="ended_reason" title={columns.endedReason} render={(value: string | null) => value ?? "—"} />}
      {!narrow && (
        <Table.Column<CallListItem>
          dataIndex="success_evaluation"
          title={columns.success}
          render={(value: string | null, call) => <SuccessEvaluation value={value} rubric={rubricOf(call.agent_id)} success={call.success} />}
        />
      )}
    </Table>
  );
}
