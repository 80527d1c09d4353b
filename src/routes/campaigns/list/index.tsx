import { PlusOutlined, StopOutlined } from "@ant-design/icons";
import { List, useTable } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Button } from "antd";
import { useEffect, useState } from "react";
import { useNavigate } from "react-router";
import type { Campaign } from "../../../../contract/campaign";
import { DEFAULT_PAGE_SIZE } from "../../../../contract/paging";
import { CAMPAIGN_POLL_MS, isLive } from "../../../components/campaigns/campaign-format";
import { applyCampaignFilters, CampaignFilters, type CampaignFilterPatch } from "../../../components/campaigns/campaign-filters";
import { CampaignTable } from "../../../components/campaigns/campaign-table";
import { DncDrawer } from "../../../components/campaigns/dnc-drawer";
import { useCampaignActions } from "../../../components/campaigns/use-campaign-actions";
import { useCampaignPermissions } from "../../../components/campaigns/use-campaign-permissions";
import "../../../components/campaigns/campaigns.css";
import { ListLoadError } from "../../../components/list-load-error";
import { strings } from "../../../config/strings";

const text = strings.campaigns;

/**
 * Campaigns: the organisation's campaigns with their state, progress and next window, paged, filtered
 * by state and searched by name (all in the URL); what each may do now is on its row. While any
 * campaign on the page is running or scheduled the page asks again every few seconds.
 */
export default function CampaignListPage() {
  const navigate = useNavigate();
  const permissions = useCampaignPermissions();
  const actions = useCampaignActions();
  const [dncOpen, setDncOpen] = useState(false);
  const { tableProps, tableQuery, filters, setFilters } = useTable<Campaign, HttpError>({
    resource: "campaign",
    syncWithLocation: true,
    pagination: { pageSize: DEFAULT_PAGE_SIZE },
    filters: { mode: "server" },
    sorters: { mode: "off" },
    errorNotification: false,
    queryOptions: {
      refetchInterval: (query) => (query.state.data?.data.some((campaign) => isLive(campaign.status)) ? CAMPAIGN_POLL_MS : false),
    },
  });

  useEffect(() => {
    document.title = `${strings.screens.campaigns} · ${strings.appName}`;
  }, []);

  const create = permissions.canCreate ? () => navigate("/campaigns/create") : undefined;
  const changeFilters = (patch: CampaignFilterPatch) => setFilters((current) => applyCampaignFilters(current, patch));

  return (
    <List
      title={<h1 className="campaigns__title">{strings.screens.campaigns}</h1>}
      breadcrumb={false}
      headerButtons={
        <>
          <Button icon={<StopOutlined />} onClick={() => setDncOpen(true)}>
            {text.dnc.open}
          </Button>
          {create && (
            <Button type="primary" icon={<PlusOutlined />} onClick={create}>
              {text.create}
            </Button>
          )}
        </>
      }
    >
      <CampaignFilters filters={filters} onChange={changeFilters} />
      <ListLoadError query={tableQuery} title={text.listFailed} retryLabel={text.retry} />
      <CampaignTable
        tableProps={{
          ...tableProps,
          pagination: tableProps.pagination && { ...tableProps.pagination, showSizeChanger: true, showTotal: (total) => text.total(total) },
        }}
        filtered={filters.length > 0}
        loaded={tableQuery.isSuccess}
        actions={actions}
        permissions={permissions}
        onCreate={create}
        onClearFilters={() => setFilters(() => [])}
      />
      <DncDrawer open={dncOpen} onClose={() => setDncOpen(false)} />
    </List>
  );
}
