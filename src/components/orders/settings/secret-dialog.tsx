import { CopyOutlined } from "@ant-design/icons";
import { Alert, Button, Input, Modal, Space, Typography } from "antd";
import { useCallback, useId } from "react";
import type { Integration } from "../../../../contract/order";
import { testCheckoutShell } from "../../../../contract/store-webhook-example";
import { useToasts } from "../../../lib/toast";
import { ordersSettingsText } from "./strings";

const text = ordersSettingsText.secret;

/** Copies text to the clipboard and says so, page-level (or says that the browser refused). */
export function useCopy() {
  const toasts = useToasts();
  return useCallback(
    async (value: string) => {
      try {
        await navigator.clipboard.writeText(value);
        toasts.notice(ordersSettingsText.copied);
      } catch {
        toasts.error(ordersSettingsText.copyFailed);
      }
    },
    [toasts],
  );
}

/** A read-only value (selected whole on focus) with a copy button named `copyLabel`. */
export function CopyField({ label, value, copyLabel, hideLabel = false }: { label: string; value: string; copyLabel: string; hideLabel?: boolean }) {
  const copy = useCopy();
  const id = useId();
  return (
    <div className="orders-secret__field">
      {!hideLabel && (
        <label className="orders-secret__label" htmlFor={id}>
          {label}
        </label>
      )}
      <Space.Compact className="orders-copy">
        <Input id={id} aria-label={hideLabel ? label : undefined} value={value} readOnly onFocus={(event) => event.target.select()} />
        <Button icon={<CopyOutlined />} aria-label={copyLabel} title={copyLabel} onClick={() => void copy(value)} />
      </Space.Compact>
    </div>
  );
}

export interface RevealedSecret {
  integration: Integration;
  secret: string;
  /** Whether the store gave its own key (Shopify), or we generated one. */
  ownKey: boolean;
  rotated: boolean;
}

/**
 * The webhook URL and the secret, which the API answers once (creation, rotation): each with a copy
 * button, a clear "you will not see it again", and where to paste them for the store's kind. A generic
 * store also gets the shell lines that send a test checkout (contract/store-webhook-example.ts).
 */
export function SecretDialog({ revealed, onClose }: { revealed: RevealedSecret | null; onClose: () => void }) {
  const copy = useCopy();
  if (!revealed) return null;
  const { integration, secret, ownKey, rotated } = revealed;
  const shell = integration.kind === "generic" ? testCheckoutShell({ webhookUrl: integration.webhook_url, secret }) : null;
  return (
    <Modal
      open
      title={rotated ? text.rotatedTitle(integration.name) : text.title(integration.name)}
      onCancel={onClose}
      maskClosable={false}
      width="min(680px, calc(100vw - 16px))"
      footer={
        <Button type="primary" onClick={onClose}>
          {text.done}
        </Button>
      }
      closable={{ "aria-label": ordersSettingsText.close }}
    >
      <CopyField label={text.webhookUrl} value={integration.webhook_url} copyLabel={text.copyWebhookUrl} />
      <CopyField label={text.secret} value={secret} copyLabel={text.copySecret} />
      <Alert
        type="warning"
        showIcon
        role="alert"
        style={{ marginBottom: 16 }}
        message={text.onceTitle}
        description={ownKey ? text.shopifyOwnKey : text.onceBody}
      />
      <Typography.Title level={5}>{text.where}</Typography.Title>
      <ol className="orders-secret__steps">
        {text.steps[integration.kind].map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      {shell && (
        <>
          <Typography.Title level={5}>{text.testTitle}</Typography.Title>
          <Typography.Paragraph type="secondary">{text.testHint}</Typography.Paragraph>
          <pre className="orders-secret__shell">{shell}</pre>
          <Button icon={<CopyOutlined />} onClick={() => void copy(shell)}>
            {text.copyTest}
          </Button>
        </>
      )}
    </Modal>
  );
}
