import { useCustom, useCustomMutation } from "@refinedev/core";
import { Alert, App, Button, Drawer, Flex, Skeleton, Typography } from "antd";
import { useState } from "react";
import type { FollowUpSettings, Integration } from "../../../../contract/order";
import { ORDER_PATHS } from "../../../../contract/order-shared";
import { useToasts } from "../../../lib/toast";
import type { ApiError } from "../../../providers/data/fetch-wrapper";
import { ListLoadError } from "../../list-load-error";
import { useSaveFollowUp } from "./follow-up-drawer";
import { FollowUpForm } from "./follow-up-form";
import { ordersSettingsText } from "./strings";

const text = ordersSettingsText.integrationFollowUp;
const FORM_ID = "integration-follow-up-settings";

/**
 * One store's follow-up (PUT /integration/{id} `follow_up`, admins): its own agent, number, windows and
 * delay, or the organisation's (null). Its own settings start from the organisation's.
 */
export function IntegrationFollowUpDrawer({ integration, onClose, onChanged }: { integration: Integration | null; onClose: () => void; onChanged: () => void }) {
  const open = integration !== null;
  const toasts = useToasts();
  const { modal } = App.useApp();
  // Which settings show: the store's own once saved (or being made), else none (it follows the organisation's).
  const [own, setOwn] = useState<FollowUpSettings | null>(null);
  const [editing, setEditing] = useState(false);
  const [shownFor, setShownFor] = useState<string | null>(null);
  if (integration && shownFor !== integration.id) {
    setShownFor(integration.id);
    setOwn(integration.follow_up);
    setEditing(false);
  }
  const organisation = useCustom<{ data: FollowUpSettings }, ApiError>({
    url: ORDER_PATHS.followUp,
    method: "get",
    queryOptions: { enabled: open && editing && !own, refetchOnWindowFocus: false },
    errorNotification: false,
  });
  const url = integration ? ORDER_PATHS.integration(integration.id) : "";
  const save = useSaveFollowUp<{ data: Integration }>(url, "put", (answer) => answer.data.follow_up!, (body) => ({ follow_up: body }));
  const { mutateAsync } = useCustomMutation<{ data: Integration }, ApiError, { follow_up: null }>();

  const handBack = () =>
    modal.confirm({
      title: text.useOrgConfirm,
      content: text.useOrgBody,
      okText: text.useOrg,
      cancelText: ordersSettingsText.cancel,
      onOk: async () => {
        try {
          await mutateAsync({ url, method: "put", values: { follow_up: null }, successNotification: false, errorNotification: false });
          setOwn(null);
          setEditing(false);
          toasts.success(text.reverted);
          onChanged();
        } catch (error) {
          toasts.error(text.revertFailed, (error as ApiError | undefined)?.message);
        }
      },
    });

  const fromOrganisation = organisation.result.data?.data;
  // Its own settings start from the organisation's values, not its state (a new follow-up is off until saved).
  const settings = own ?? (editing && fromOrganisation ? { ...fromOrganisation, state: "off" as const, pause_reason: null, campaign_id: null } : undefined);

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={integration ? text.title(integration.name) : ""}
      width="min(760px, 100vw)"
      destroyOnHidden
      closable={{ "aria-label": ordersSettingsText.close }}
      footer={
        settings ? (
          <Flex justify="flex-end" gap={8} wrap>
            {own && <Button onClick={handBack}>{text.useOrg}</Button>}
            <Button type="primary" htmlType="submit" form={FORM_ID}>
              {ordersSettingsText.followUp.save}
            </Button>
          </Flex>
        ) : null
      }
    >
      <Alert type="info" showIcon style={{ marginBottom: 16 }} message={own ? text.usesOwn : text.usesOrg} />
      {!own && !editing && (
        <Button type="primary" onClick={() => setEditing(true)}>
          {text.makeOwn}
        </Button>
      )}
      {!own && editing && <ListLoadError query={organisation.query} title={ordersSettingsText.followUp.loadFailed} retryLabel={ordersSettingsText.retry} />}
      {!own && editing && organisation.query.isPending && <Skeleton active />}
      {settings && integration && (
        <>
          <Typography.Paragraph type="secondary">{ordersSettingsText.followUp.intro}</Typography.Paragraph>
          <FollowUpForm
            key={own ? `own-${own.campaign_id}` : "from-organisation"}
            formId={FORM_ID}
            settings={settings}
            canManage
            save={save}
            onSaved={(saved) => {
              setOwn(saved);
              toasts.success(ordersSettingsText.followUp.saved);
              onChanged();
            }}
          />
        </>
      )}
    </Drawer>
  );
}
