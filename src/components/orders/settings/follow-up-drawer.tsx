import { useCan, useCustom, useCustomMutation, type BaseRecord } from "@refinedev/core";
import { Button, Drawer, Flex, Skeleton, Typography } from "antd";
import type { FollowUpSettings, FollowUpSettingsInput } from "../../../../contract/order";
import { ORDER_PATHS } from "../../../../contract/order-shared";
import { useToasts } from "../../../lib/toast";
import type { ApiError } from "../../../providers/data/fetch-wrapper";
import { ListLoadError } from "../../list-load-error";
import { ConsentRules, FollowUpForm } from "./follow-up-form";
import type { OrdersPanelProps } from "./panel-props";
import { ordersSettingsText } from "./strings";

const text = ordersSettingsText.followUp;
const FORM_ID = "order-follow-up-settings";

/** Whether the signed-in role may change follow-up settings and store integrations (contract/permissions.ts: order "manage"). */
export function useCanManageOrders(): boolean {
  return useCan({ resource: "order", action: "manage" }).data?.can === true;
}

/** PUT `url` with a follow-up body; resolves to the saved settings (`pick` reads them out of the answer). */
export function useSaveFollowUp<T extends BaseRecord>(url: string, method: "put", pick: (answer: T) => FollowUpSettings, wrap: (body: FollowUpSettingsInput) => object = (body) => body) {
  const { mutateAsync } = useCustomMutation<T, ApiError, object>();
  return async (body: FollowUpSettingsInput) => {
    const { data } = await mutateAsync({ url, method, values: wrap(body), successNotification: false, errorNotification: false });
    return pick(data);
  };
}

/** The organisation's follow-up settings (GET/PUT /order/follow-up); members see them read-only. */
export function FollowUpSettingsDrawer({ open, onClose, onChanged }: OrdersPanelProps) {
  const canManage = useCanManageOrders();
  const toasts = useToasts();
  const { result, query } = useCustom<{ data: FollowUpSettings }, ApiError>({
    url: ORDER_PATHS.followUp,
    method: "get",
    queryOptions: { enabled: open, refetchOnWindowFocus: false },
    errorNotification: false,
  });
  const save = useSaveFollowUp<{ data: FollowUpSettings }>(ORDER_PATHS.followUp, "put", (answer) => answer.data);
  const settings = query.isPending ? undefined : result.data?.data;

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={text.title}
      width="min(760px, 100vw)"
      destroyOnHidden
      closable={{ "aria-label": ordersSettingsText.close }}
      footer={
        canManage && settings ? (
          <Flex justify="flex-end" gap={8}>
            <Button onClick={onClose}>{ordersSettingsText.cancel}</Button>
            <Button type="primary" htmlType="submit" form={FORM_ID}>
              {text.save}
            </Button>
          </Flex>
        ) : null
      }
    >
      <Typography.Paragraph type="secondary">{text.intro}</Typography.Paragraph>
      <ConsentRules />
      <ListLoadError query={query} title={text.loadFailed} retryLabel={ordersSettingsText.retry} />
      {!settings && !query.isError && <Skeleton active aria-label={text.loading} />}
      {settings && (
        <FollowUpForm
          // A new answer (after a save, on opening again) opens the form afresh.
          key={query.dataUpdatedAt}
          formId={FORM_ID}
          settings={settings}
          canManage={canManage}
          save={save}
          onSaved={() => {
            toasts.success(text.saved);
            void query.refetch();
            onChanged?.();
          }}
        />
      )}
    </Drawer>
  );
}
