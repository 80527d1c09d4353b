import { Button, Empty, Flex, Input, Select, Space, Table, Tooltip, Typography } from "antd";
import { useState } from "react";
import type { Campaign, CampaignContact } from "../../../contract/campaign";
import type { ContactStatus } from "../../../contract/campaign-shared";
import { CALL_OUTCOMES, type CallOutcome } from "../../../contract/call-outcome";
import { strings } from "../../config/strings";
import { useDraft } from "../calls/use-draft";
import { ListLoadError, listEmptyText } from "../list-load-error";
import { formatPhoneNumber } from "../phone-numbers/format-number";
import { formatInstant, formatRelative } from "./campaign-format";
import { contactStateOptions } from "./campaign-progress";
import { ContactStatusTag } from "./campaign-status-tag";
import { useCampaignContacts } from "./use-campaign-detail";
import { useTablePaging } from "./use-table-paging";

const text = strings.campaigns.contacts;
const outcomes = strings.callLogs.outcomes;

/** A contact's calls, oldest first as "Call 1", "Call 2"…; each opens the call (Call Logs' drawer). */
function ContactCalls({ contact, onOpenCall }: { contact: CampaignContact; onOpenCall: (id: string) => void }) {
  if (contact.call_ids.length === 0) return <Typography.Text type="secondary">{text.noCalls}</Typography.Text>;
  const oldestFirst = [...contact.call_ids].reverse();
  return (
    <Space size={0} wrap>
      {oldestFirst.map((id, index) => (
        <Tooltip key={id} title={id}>
          <Button type="link" size="small" className="campaign-contacts__call" aria-label={strings.callLogs.openCall(id)} onClick={() => onOpenCall(id)}>
            {text.call(index + 1)}
          </Button>
        </Tooltip>
      ))}
    </Space>
  );
}

/**
 * The campaign's contacts (GET /campaign/{id}/contacts), paged, filtered by state and last outcome and
 * searched by name or number; asked again with the campaign while it is live.
 */
export function CampaignContacts({ campaign, live, onOpenCall }: { campaign: Campaign; live: boolean; onOpenCall: (id: string) => void }) {
  const { page, pageSize, setPage, pagination } = useTablePaging(text.total);
  const [status, setStatus] = useState<ContactStatus | undefined>();
  const [outcome, setOutcome] = useState<CallOutcome | undefined>();
  const [search, setSearch] = useState("");
  const [draft, setDraft] = useDraft(search, (value) => {
    setSearch(value.trim());
    setPage(1);
  });
  const { contacts, total, query } = useCampaignContacts(campaign.id, { page, limit: pageSize, status, outcome, search: search || undefined }, live);
  const filtered = Boolean(status || outcome || search);

  return (
    <>
      <Flex wrap gap={8} role="search" aria-label={text.search} className="campaign-contacts__filters">
        <Input.Search
          aria-label={text.search}
          placeholder={text.searchPlaceholder}
          allowClear
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onSearch={(value) => setDraft(value)}
          className="campaign-contacts__filter--search"
        />
        <Select<ContactStatus>
          aria-label={text.status}
          placeholder={text.status}
          allowClear
          value={status}
          onChange={(value) => {
            setStatus(value);
            setPage(1);
          }}
          options={contactStateOptions(campaign.counts)}
          popupMatchSelectWidth={false}
          className="campaign-contacts__filter--select"
        />
        <Select<CallOutcome>
          aria-label={text.outcome}
          placeholder={text.outcome}
          allowClear
          value={outcome}
          onChange={(value) => {
            setOutcome(value);
            setPage(1);
          }}
          options={CALL_OUTCOMES.map((value) => ({ value, label: outcomes[value] }))}
          className="campaign-contacts__filter--select"
        />
      </Flex>
      <ListLoadError query={query} title={text.failed} retryLabel={strings.campaigns.retry} />
      <Table<CampaignContact>
        rowKey="id"
        size="middle"
        dataSource={contacts}
        loading={query.isPending}
        scroll={{ x: "max-content" }}
        locale={{ emptyText: listEmptyText(query.isSuccess, <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={filtered ? text.emptyFiltered : text.empty} />) }}
        pagination={pagination(total)}
      >
        <Table.Column<CampaignContact>
          title={text.columns.contact}
          key="contact"
          render={(_, contact) => (
            <Flex vertical>
              <span>{contact.name ?? "—"}</span>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {formatPhoneNumber(contact.number)}
              </Typography.Text>
            </Flex>
          )}
        />
        <Table.Column<CampaignContact> title={text.columns.status} dataIndex="status" render={(value: ContactStatus) => <ContactStatusTag status={value} />} />
        <Table.Column<CampaignContact> title={text.columns.outcome} dataIndex="outcome" render={(value: CallOutcome | null) => (value ? outcomes[value] : "—")} />
        <Table.Column<CampaignContact> title={text.columns.attempts} dataIndex="attempts" render={(value: number) => text.attempts(value, campaign.retry.max_attempts)} />
        <Table.Column<CampaignContact>
          title={text.columns.timezones}
          dataIndex="timezones"
          render={(value: string[]) => (value.length ? value.join(", ") : <Typography.Text type="warning">{text.noZone}</Typography.Text>)}
        />
        <Table.Column<CampaignContact>
          title={text.columns.nextAttempt}
          dataIndex="next_attempt_at"
          render={(value: string | null) =>
            value ? (
              <Tooltip title={formatInstant(value)}>
                <time dateTime={value}>{formatRelative(value)}</time>
              </Tooltip>
            ) : (
              "—"
            )
          }
        />
        <Table.Column<CampaignContact> title={text.columns.calls} key="calls" render={(_, contact) => <ContactCalls contact={contact} onOpenCall={onOpenCall} />} />
        <Table.Column<CampaignContact> title={text.columns.endedReason} dataIndex="last_ended_reason" render={(value: string | null) => value ?? "—"} />
      </Table>
    </>
  );
}
