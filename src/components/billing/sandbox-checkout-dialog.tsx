import { useCustom, useCustomMutation } from "@refinedev/core";
import { Alert, Button, Input, List, Modal, Skeleton, Space, Tag, Typography } from "antd";
import { useState } from "react";
import type { SandboxCheckout } from "../../../contract/billing";
import { billingPaths, SANDBOX_TEST_CARDS } from "../../../contract/billing-shared";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatUsd } from "./billing-format";
import { useGoToUrl } from "./go-to-url";
import { billingText } from "./strings";
import { pathOf } from "./use-billing";
import { ListLoadError } from "../list-load-error";

const text = billingText.checkout;

interface PayResult {
  status: "complete" | "declined" | "requires_action";
  detail: string;
  redirect_url: string | null;
}

/**
 * The sandbox payment provider's checkout (what Stripe's hosted page is in Stripe mode), opened by
 * ?checkout=<id>: pay with a test card, confirm authentication when the card asks, or cancel.
 */
export function SandboxCheckoutDialog({ checkoutId, onClose }: { checkoutId: string; onClose: () => void }) {
  const { result, query } = useCustom<{ data: SandboxCheckout }, ApiError>({
    url: pathOf(billingPaths.sandboxCheckout, checkoutId),
    method: "get",
    errorNotification: false,
  });
  const checkout = (result.data as { data?: SandboxCheckout } | undefined)?.data;
  const { mutateAsync, mutation } = useCustomMutation<{ data: unknown }, ApiError>();
  const go = useGoToUrl();
  const [cardNumber, setCardNumber] = useState("");
  const [outcome, setOutcome] = useState<PayResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  const pay = async (authenticated: boolean) => {
    setError(null);
    try {
      const answer = await mutateAsync({
        url: pathOf(billingPaths.sandboxCheckoutPay, checkoutId),
        method: "post",
        values: { card_number: cardNumber, authenticated },
        successNotification: false,
        errorNotification: false,
      });
      const paid = (answer.data as { data: PayResult }).data;
      setOutcome(paid);
      if (paid.status === "complete" && paid.redirect_url) go(paid.redirect_url);
    } catch (cause) {
      setError((cause as ApiError).message);
    }
  };

  const cancel = async () => {
    try {
      await mutateAsync({ url: pathOf(billingPaths.sandboxCheckoutCancel, checkoutId), method: "post", values: {}, successNotification: false, errorNotification: false });
    } catch {
      // Closing matters more than the answer: the checkout expires by itself.
    }
    onClose();
  };

  const open = checkout?.status === "open";
  const needsAuth = outcome?.status === "requires_action";

  return (
    <Modal
      open
      title={
        <Space>
          {text.title}
          <Tag color="purple">{billingText.sandbox}</Tag>
        </Space>
      }
      onCancel={() => void cancel()}
      footer={
        <Space wrap>
          <Button onClick={() => void cancel()}>{text.cancel}</Button>
          {open && !needsAuth && (
            <Button type="primary" disabled={cardNumber.replace(/[\s-]/g, "").length < 12} loading={mutation.isPending} onClick={() => void pay(false)}>
              {text.pay(formatUsd(checkout.amount_usd))}
            </Button>
          )}
          {open && needsAuth && (
            <Button type="primary" loading={mutation.isPending} onClick={() => void pay(true)}>
              {text.confirmAuth}
            </Button>
          )}
        </Space>
      }
    >
      {query.isError ? (
        <ListLoadError query={query} title={text.loadFailed} retryLabel={billingText.retry} />
      ) : !checkout ? (
        <div role="status" aria-label={text.loading}>
          <Skeleton active />
        </div>
      ) : (
        <Space direction="vertical" style={{ width: "100%" }}>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {formatUsd(checkout.amount_usd)}
          </Typography.Title>
          <Typography.Text>{checkout.description}</Typography.Text>
          <Typography.Text type="secondary">{text.intro}</Typography.Text>
          {!open && <Alert type="info" role="status" showIcon message={text.closed(checkout.status)} />}
          {open && needsAuth && <Alert type="warning" showIcon message={text.authTitle} description={outcome?.detail || text.authBody} />}
          {open && !needsAuth && (
            <>
              <Typography.Text strong>{text.testCards}</Typography.Text>
              <List
                size="small"
                bordered
                dataSource={[...SANDBOX_TEST_CARDS]}
                renderItem={(card) => (
                  <List.Item>
                    <Button type="link" style={{ padding: 0, height: "auto", whiteSpace: "normal", textAlign: "left" }} onClick={() => setCardNumber(card.number)}>
                      <span className="billing-mono">{card.number.replace(/(\d{4})(?=\d)/g, "$1 ")}</span> — {card.label}
                    </Button>
                  </List.Item>
                )}
              />
              <label htmlFor="sandbox-card-number">{text.cardNumber}</label>
              <Input id="sandbox-card-number" inputMode="numeric" autoComplete="off" value={cardNumber} onChange={(event) => setCardNumber(event.target.value)} placeholder="4242 4242 4242 4242" />
            </>
          )}
          {outcome?.status === "declined" && <Alert type="error" showIcon message={text.declined} description={outcome.detail} />}
          {error && <Alert type="error" showIcon message={error} />}
        </Space>
      )}
    </Modal>
  );
}
