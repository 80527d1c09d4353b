import { DeleteOutlined, KeyOutlined, PhoneOutlined } from "@ant-design/icons";
import { useCustom, useCustomMutation } from "@refinedev/core";
import { Alert, App, Button, Drawer, Form, Input, Modal, Radio, Skeleton, Tag, Typography } from "antd";
import { useState } from "react";
import type { Integration } from "../../../../contract/order";
import { INTEGRATION_KINDS, INTEGRATION_NAME_MAX_LENGTH, INTEGRATIONS_MAX, ORDER_PATHS, type IntegrationKind } from "../../../../contract/order-shared";
import type { ListEnvelope } from "../../../../contract/paging";
import { useToasts } from "../../../lib/toast";
import type { ApiError } from "../../../providers/data/fetch-wrapper";
import { formatInstant } from "../../campaigns/campaign-format";
import { ListLoadError } from "../../list-load-error";
import { useCanManageOrders } from "./follow-up-drawer";
import { IntegrationFollowUpDrawer } from "./integration-follow-up-drawer";
import type { OrdersPanelProps } from "./panel-props";
import { CopyField, SecretDialog, type RevealedSecret } from "./secret-dialog";
import { ordersSettingsText } from "./strings";
import "./settings.css";

const text = ordersSettingsText.integrations;

/** A store's own signing key, as the API takes it (contract/order.ts storeSecretSchema). */
const STORE_SECRET = /^[\x21-\x7e]{16,256}$/;

interface CreateValues {
  kind: IntegrationKind;
  name: string;
  secret?: string;
}

/** Connecting a store (admins): kind, name, and for Shopify its own signing key if the person has it. */
function CreateIntegrationForm({ onCreated, full }: { onCreated: (revealed: RevealedSecret) => void; full: boolean }) {
  const [form] = Form.useForm<CreateValues>();
  const kind = Form.useWatch("kind", form) as IntegrationKind | undefined;
  const [error, setError] = useState<string | null>(null);
  const { mutateAsync, mutation } = useCustomMutation<{ data: Integration & { secret: string } }, ApiError, { kind: IntegrationKind; name: string; secret?: string }>();

  const submit = async (values: CreateValues) => {
    setError(null);
    const secret = values.kind === "shopify" ? values.secret?.trim() : undefined;
    try {
      const { data } = await mutateAsync({
        url: ORDER_PATHS.integrations,
        method: "post",
        values: { kind: values.kind, name: values.name.trim(), ...(secret ? { secret } : {}) },
        successNotification: false,
        errorNotification: false,
      });
      const { secret: revealed, ...integration } = data.data;
      form.resetFields();
      onCreated({ integration, secret: revealed, ownKey: Boolean(secret), rotated: false });
    } catch (caught) {
      setError((caught as ApiError | undefined)?.message ?? text.createFailed);
    }
  };

  return (
    <section className="orders-integrations__add" aria-label={text.addTitle}>
      <Typography.Title level={5} style={{ marginTop: 0 }}>
        {text.addTitle}
      </Typography.Title>
      {error && <Alert type="error" showIcon role="alert" message={text.createFailed} description={error} style={{ marginBottom: 12 }} />}
      {full && <Typography.Paragraph type="secondary">{text.limit(INTEGRATIONS_MAX)}</Typography.Paragraph>}
      <Form<CreateValues> form={form} layout="vertical" initialValues={{ kind: "shopify" }} onFinish={(values) => void submit(values)} disabled={full}>
        <Form.Item name="kind" label={text.kind}>
          <Radio.Group optionType="button" options={INTEGRATION_KINDS.map((value) => ({ value, label: text.kindLabels[value] }))} />
        </Form.Item>
        <Form.Item name="name" label={text.name} rules={[{ required: true, whitespace: true, message: text.nameRequired }]}>
          <Input placeholder={text.namePlaceholder} maxLength={INTEGRATION_NAME_MAX_LENGTH} autoComplete="off" />
        </Form.Item>
        {kind === "shopify" && (
          <Form.Item
            name="secret"
            label={text.shopifySecret}
            extra={text.shopifySecretHint}
            rules={[{ validator: async (_, value?: string) => { if (value?.trim() && !STORE_SECRET.test(value.trim())) throw new Error(text.secretTooShort); } }]}
          >
            <Input.Password autoComplete="off" />
          </Form.Item>
        )}
        <Button type="primary" htmlType="submit" loading={mutation.isPending}>
          {text.create}
        </Button>
      </Form>
    </section>
  );
}

/** Rotating a secret (admins), after a confirmation; Shopify may give its own signing key instead. */
function RotateDialog({ integration, onClose, onRotated }: { integration: Integration | null; onClose: () => void; onRotated: (revealed: RevealedSecret) => void }) {
  const [form] = Form.useForm<{ secret?: string }>();
  const [error, setError] = useState<string | null>(null);
  const { mutateAsync, mutation } = useCustomMutation<{ data: Integration & { secret: string } }, ApiError, { secret?: string }>();
  if (!integration) return null;

  const submit = async (values: { secret?: string }) => {
    setError(null);
    const own = integration.kind === "shopify" ? values.secret?.trim() : undefined;
    try {
      const { data } = await mutateAsync({
        url: ORDER_PATHS.rotateSecret(integration.id),
        method: "post",
        values: own ? { secret: own } : {},
        successNotification: false,
        errorNotification: false,
      });
      const { secret, ...rotated } = data.data;
      onRotated({ integration: rotated, secret, ownKey: Boolean(own), rotated: true });
    } catch (caught) {
      setError((caught as ApiError | undefined)?.message ?? text.rotateFailed);
    }
  };

  return (
    <Modal
      open
      title={text.rotateTitle}
      onCancel={onClose}
      okText={text.rotateOk}
      okButtonProps={{ danger: true, loading: mutation.isPending }}
      cancelText={ordersSettingsText.cancel}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      <Typography.Paragraph>{text.rotateBody(integration.name)}</Typography.Paragraph>
      {error && <Alert type="error" showIcon role="alert" message={text.rotateFailed} description={error} style={{ marginBottom: 12 }} />}
      <Form form={form} layout="vertical" onFinish={(values) => void submit(values)}>
        {integration.kind === "shopify" && (
          <Form.Item
            name="secret"
            label={text.rotateShopifyLabel}
            extra={text.rotateShopifyHint}
            rules={[{ validator: async (_, value?: string) => { if (value?.trim() && !STORE_SECRET.test(value.trim())) throw new Error(text.secretTooShort); } }]}
          >
            <Input.Password autoComplete="off" />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}

function IntegrationItem({
  integration,
  canManage,
  onRotate,
  onRemove,
  onFollowUp,
}: {
  integration: Integration;
  canManage: boolean;
  onRotate: () => void;
  onRemove: () => void;
  onFollowUp: () => void;
}) {
  return (
    <li className="orders-integrations__item" aria-label={integration.name}>
      <div className="orders-integrations__head">
        <Tag color={integration.kind === "shopify" ? "green" : integration.kind === "woocommerce" ? "purple" : "blue"}>{text.kindLabels[integration.kind]}</Tag>
        <span className="orders-integrations__name">{integration.name}</span>
        {integration.is_demo && <Tag>{text.demo}</Tag>}
        <Tag color={integration.follow_up ? "gold" : undefined}>{integration.follow_up ? text.ownFollowUp : text.orgFollowUp}</Tag>
      </div>
      <CopyField label={text.webhookUrlOf(integration.name)} hideLabel value={integration.webhook_url} copyLabel={text.copyWebhookUrlOf(integration.name)} />
      <div className="orders-integrations__meta">
        <span>{integration.last_delivery_at ? text.lastDelivery(formatInstant(integration.last_delivery_at)) : text.noDelivery}</span>
        <span>{text.orders(integration.orders)}</span>
        <span>{text.secretHint(integration.secret_hint)}</span>
      </div>
      {canManage && (
        <div className="orders-integrations__actions">
          <Button size="small" icon={<PhoneOutlined />} onClick={onFollowUp} aria-label={text.followUpOn(integration.name)}>
            {text.followUp}
          </Button>
          <Button size="small" icon={<KeyOutlined />} onClick={onRotate} aria-label={text.rotateOn(integration.name)}>
            {text.rotate}
          </Button>
          <Button size="small" danger icon={<DeleteOutlined />} onClick={onRemove} aria-label={text.removeOn(integration.name)}>
            {text.remove}
          </Button>
        </div>
      )}
    </li>
  );
}

/**
 * The organisation's store integrations (GET /integration/): each with its kind, name, webhook URL
 * (copyable), last delivery and orders; admins connect a store (its secret is shown once), rotate a
 * secret, give a store follow-up settings of its own, and disconnect it after a confirmation.
 */
export function IntegrationsDrawer({ open, onClose, onChanged }: OrdersPanelProps) {
  const canManage = useCanManageOrders();
  const { modal } = App.useApp();
  const toasts = useToasts();
  const [revealed, setRevealed] = useState<RevealedSecret | null>(null);
  const [rotating, setRotating] = useState<Integration | null>(null);
  const [followUpOf, setFollowUpOf] = useState<Integration | null>(null);
  const { result, query } = useCustom<ListEnvelope<Integration>, ApiError>({
    url: ORDER_PATHS.integrations,
    method: "get",
    config: { query: { page: 1, limit: INTEGRATIONS_MAX } },
    queryOptions: { enabled: open },
    errorNotification: false,
  });
  const { mutateAsync: remove } = useCustomMutation<{ data?: unknown }, ApiError, undefined>();
  const integrations = result.data?.data ?? [];
  const refresh = () => void query.refetch();

  const confirmRemove = (integration: Integration) =>
    modal.confirm({
      title: text.removeTitle,
      content: text.removeBody(integration.name),
      okText: text.removeOk,
      okButtonProps: { danger: true },
      cancelText: ordersSettingsText.cancel,
      onOk: async () => {
        try {
          await remove({ url: ORDER_PATHS.integration(integration.id), method: "delete", values: undefined, successNotification: false, errorNotification: false });
          toasts.success(text.removed);
          refresh();
          onChanged?.();
        } catch (error) {
          toasts.error(text.removeFailed, (error as ApiError | undefined)?.message);
        }
      },
    });

  return (
    <Drawer open={open} onClose={onClose} title={text.title} width="min(720px, 100vw)" destroyOnHidden closable={{ "aria-label": ordersSettingsText.close }}>
      <Typography.Paragraph type="secondary">{text.intro}</Typography.Paragraph>
      {canManage ? (
        <CreateIntegrationForm
          full={integrations.length >= INTEGRATIONS_MAX}
          onCreated={(created) => {
            setRevealed(created);
            toasts.success(text.created);
            refresh();
            onChanged?.();
          }}
        />
      ) : (
        <Typography.Paragraph type="secondary">{text.memberNote}</Typography.Paragraph>
      )}
      <ListLoadError query={query} title={text.loadFailed} retryLabel={ordersSettingsText.retry} />
      {query.isPending && !query.isError && <Skeleton active />}
      {!query.isPending && !query.isError && integrations.length === 0 && <Typography.Paragraph type="secondary">{text.empty}</Typography.Paragraph>}
      {integrations.length > 0 && (
        <ul className="orders-integrations__list" aria-label={text.title}>
          {integrations.map((integration) => (
            <IntegrationItem
              key={integration.id}
              integration={integration}
              canManage={canManage}
              onRotate={() => setRotating(integration)}
              onRemove={() => confirmRemove(integration)}
              onFollowUp={() => setFollowUpOf(integration)}
            />
          ))}
        </ul>
      )}
      <RotateDialog
        key={rotating?.id ?? "none"}
        integration={rotating}
        onClose={() => setRotating(null)}
        onRotated={(rotated) => {
          setRotating(null);
          setRevealed(rotated);
          toasts.success(text.rotated);
          refresh();
        }}
      />
      <SecretDialog revealed={revealed} onClose={() => setRevealed(null)} />
      <IntegrationFollowUpDrawer
        integration={followUpOf}
        onClose={() => setFollowUpOf(null)}
        onChanged={() => {
          refresh();
          onChanged?.();
        }}
      />
    </Drawer>
  );
}
