import { Alert, Button, Modal, Skeleton, Table, Typography } from "antd";
import { PLAN_LIMIT_LABELS, PLANS, type PlanId } from "../../../contract/plans";
import { formatCount, formatPriceChange } from "./format";
import { subscriptionText } from "./strings";
import { usePlanPreview } from "./use-subscription";
import { ListLoadError } from "../list-load-error";
import { RetentionNotice } from "./retention-notice";

const text = subscriptionText.preview;

const figure = (value: number | null) => (value === null ? subscriptionText.usage.unlimited : formatCount(value));

/**
 * The preview of a plan change (GET /subscription/preview?plan=): the price change, what each limit
 * becomes, for a downgrade the call history the retention sweep will delete and what is over the new limits (kept, but
 * nothing new of those kinds); Confirm posts the change.
 */
export function ChangeDialog({ plan, pending, onConfirm, onClose }: { plan: PlanId | null; pending: boolean; onConfirm: (plan: PlanId) => void; onClose: () => void }) {
  const { preview, query } = usePlanPreview(plan);
  const name = plan ? PLANS[plan].name : "";
  const price =
    preview === undefined ? null : preview.price_change_usd === null ? text.priceCustom : preview.price_change_usd === 0 ? text.priceSame : text.priceChange(formatPriceChange(preview.price_change_usd));
  return (
    <Modal
      open={plan !== null}
      title={text.title(name)}
      onCancel={onClose}
      destroyOnHidden
      footer={[
        <Button key="cancel" onClick={onClose}>
          {text.cancel}
        </Button>,
        preview?.contact_sales ? (
          <Button key="sales" type="primary" href={subscriptionText.salesMailto(name)}>
            {subscriptionText.actions.contactSales}
          </Button>
        ) : (
          <Button key="confirm" type="primary" disabled={!preview} loading={pending} onClick={() => plan && onConfirm(plan)}>
            {text.confirm}
          </Button>
        ),
      ]}
    >
      {query.isError ? (
        <ListLoadError query={query} title={text.loadFailed} retryLabel={subscriptionText.retry} />
      ) : !preview ? (
        <div aria-busy="true" aria-label={text.loading}>
          <Skeleton active paragraph={{ rows: 4 }} />
        </div>
      ) : (
        <>
          {preview.contact_sales && <Alert type="info" role="status" showIcon message={text.contactSales} style={{ marginBottom: 12 }} />}
          <Typography.Paragraph>
            <Typography.Text strong>{text.price}: </Typography.Text>
            <span data-testid="preview-price">{price}</span>
          </Typography.Paragraph>
          <Table
            size="small"
            rowKey="limit"
            pagination={false}
            dataSource={preview.changes}
            columns={[
              { key: "limit", title: text.limit, render: (_, row) => PLAN_LIMIT_LABELS[row.limit] },
              { key: "from", title: text.from, align: "right", render: (_, row) => figure(row.from) },
              { key: "to", title: text.to, align: "right", render: (_, row) => figure(row.to) },
            ]}
          />
          <RetentionNotice preview={preview} />
          {preview.over_limits.length > 0 && (
            <Alert
              type="warning"
              showIcon
              style={{ marginTop: 12 }}
              message={text.overTitle}
              description={
                <>
                  <p style={{ margin: "0 0 4px" }}>{text.overIntro}</p>
                  <ul style={{ margin: 0, paddingLeft: 20 }} aria-label={text.overTitle}>
                    {preview.over_limits.map((over) => (
                      <li key={over.limit}>{text.overItem(PLAN_LIMIT_LABELS[over.limit], formatCount(over.usage), formatCount(over.allowed))}</li>
                    ))}
                  </ul>
                </>
              }
            />
          )}
        </>
      )}
    </Modal>
  );
}
