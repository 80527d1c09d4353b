import { Button, Empty, Flex, Table, Typography, type TableProps } from "antd";
import { Link } from "react-router";
import type { Campaign } from "../../../contract/campaign";
import { strings } from "../../config/strings";
import { useShell } from "../layout/shell-context";
import { listEmptyText } from "../list-load-error";
import { formatPhoneNumber } from "../phone-numbers/format-number";
import { CampaignActions } from "./campaign-actions";
import { CampaignCounts, CampaignProgress, NextWindow } from "./campaign-progress";
import { CampaignStatusTag } from "./campaign-status-tag";
import type { useCampaignActions } from "./use-campaign-actions";
import type { useCampaignPermissions } from "./use-campaign-permissions";

const text = strings.campaigns;

/** The first-run explanation: what a campaign is, and the way to make one. */
function FirstCampaign({ onCreate }: { onCreate?: () => void }) {
  return (
    <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={<><strong>{text.emptyTitle}</strong><br /><span className="campaigns__empty-body">{text.emptyBody}</span></>}>
      {onCreate && (
        <Button type="primary" onClick={onCreate}>
          {text.create}
        </Button>
      )}
    </Empty>
  );
}

/** The campaigns of the current page: name (to its calls), state, progress, counts, next window and actions. */
export function CampaignTable({
  tableProps,
  filtered,
  loaded,
  actions,
  permissions,
  onCreate,
  onClearFilters,
}: {
  tableProps: TableProps<Campaign>;
  filtered: boolean;
  /** The list has loaded: until then (failed, or asked again) the table claims neither "none yet" nor "none match". */
  loaded: boolean;
  actions: ReturnType<typeof useCampaignActions>;
  permissions: ReturnType<typeof useCampaignPermissions>;
  onCreate?: () => void;
  onClearFilters: () => void;
}) {
  // On a phone a row is one column, all in sight without scrolling sideways: the name, the agent and caller number
  // (the number on one line), the status, the progress, the next window and the actions; the counts' breakdown is
  // left to the desktop and the campaign's page.
  const { narrow } = useShell();
  return (
    <Table<Campaign>
      {...tableProps}
      rowKey="id"
      // Columns keep their content's width on a desktop; a phone's single column fits.
      scroll={narrow ? undefined : { x: "max-content" }}
      locale={{
        emptyText: listEmptyText(
          loaded,
          filtered ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={text.emptyFiltered}>
              <Button onClick={onClearFilters}>{text.clearFilters}</Button>
            </Empty>
          ) : (
            <FirstCampaign onCreate={onCreate} />
          ),
        ),
      }}
    >
      <Table.Column<Campaign>
        title={text.columns.name}
        dataIndex="name"
        render={(_, campaign) => (
          <Flex vertical gap={2} className="campaigns__name">
            <Link to={`/campaigns/${encodeURIComponent(campaign.id)}/calls`}>{campaign.name}</Link>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {campaign.agent_name ?? text.noAgent}
              {" · "}
              <span className="campaigns__number">{campaign.phone_number ? formatPhoneNumber(campaign.phone_number) : text.noNumber}</span>
            </Typography.Text>
            {narrow && (
              <>
                <span className="campaigns__row-status">
                  <CampaignStatusTag campaign={campaign} />
                </span>
                <CampaignProgress name={campaign.name} counts={campaign.counts} />
                {campaign.next_window_at && <NextWindow at={campaign.next_window_at} status={campaign.status} />}
                <CampaignActions campaign={campaign} actions={actions} permissions={permissions} compact />
              </>
            )}
          </Flex>
        )}
      />
      {!narrow && <Table.Column<Campaign> title={text.columns.status} dataIndex="status" render={(_, campaign) => <CampaignStatusTag campaign={campaign} />} />}
      {!narrow && <Table.Column<Campaign> title={text.columns.progress} key="progress" render={(_, campaign) => <CampaignProgress name={campaign.name} counts={campaign.counts} />} />}
      {!narrow && <Table.Column<Campaign> title={text.columns.counts} key="counts" render={(_, campaign) => <CampaignCounts counts={campaign.counts} />} />}
      {!narrow && (
        <Table.Column<Campaign> title={text.columns.nextWindow} dataIndex="next_window_at" render={(_, campaign) => <NextWindow at={campaign.next_window_at} status={campaign.status} />} />
      )}
      {!narrow && (
        <Table.Column<Campaign>
          title={text.columns.actions}
          key="actions"
          render={(_, campaign) => <CampaignActions campaign={campaign} actions={actions} permissions={permissions} compact />}
        />
      )}
    </Table>
  );
}
