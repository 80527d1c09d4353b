import { CopyOutlined, ReloadOutlined } from "@ant-design/icons";
import { Alert, App, Button, Card, Flex, Input, Skeleton, Space, Typography } from "antd";
import { useState } from "react";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { calendarPermissionText } from "./strings";
import { useCalendarActions, useCalendarFeed } from "./use-calendar-permission";

const text = calendarPermissionText.feed;

function HowToSubscribe() {
  return (
    <div>
      <h3 className="calendar-permission__subtitle">{text.howTo}</h3>
      <ul className="calendar-permission__steps">
        {text.howToSteps.map((step) => (
          <li key={step.app}>
            <strong>{step.app}:</strong> {step.how}
          </li>
        ))}
      </ul>
      <Typography.Text type="secondary">{text.refreshNote}</Typography.Text>
    </div>
  );
}

/**
 * The ICS feed's card: the secret address with Copy and Replace (admins; replacing cuts off every
 * subscriber, so it asks first), and how to subscribe in the common calendar apps. Members are told to
 * ask an admin: the address opens every appointment.
 */
export function FeedCard({ canManage, permissionKnown }: { canManage: boolean; permissionKnown: boolean }) {
  const { modal } = App.useApp();
  const toasts = useToasts();
  const { url: fetched, query } = useCalendarFeed(canManage);
  const { rotateFeed } = useCalendarActions();
  // The address a rotation answered, until the feed is asked again.
  const [rotated, setRotated] = useState<string | null>(null);
  const url = rotated ?? fetched;

  const copy = async () => {
    if (!url) return;
    try {
      await navigator.clipboard.writeText(url);
      toasts.notice(text.copied);
    } catch {
      toasts.error(text.copyFailed);
    }
  };

  const confirmRotate = () =>
    modal.confirm({
      title: text.rotateConfirmTitle,
      content: text.rotateConfirmBody,
      okText: text.rotateOk,
      okButtonProps: { danger: true },
      cancelText: calendarPermissionText.google.cancel,
      onOk: async () => {
        try {
          setRotated((await rotateFeed()).url);
          toasts.success(text.rotated);
        } catch (error) {
          toasts.error(text.rotateFailed, (error as ApiError | undefined)?.message);
        }
      },
    });

  let body;
  if (!permissionKnown || (canManage && query.isLoading)) {
    body = <Skeleton active paragraph={{ rows: 2 }} title={false} aria-busy="true" aria-label={text.loading} />;
  } else if (!canManage) {
    body = <Typography.Paragraph style={{ marginBottom: 0 }}>{text.membersAskAdmin}</Typography.Paragraph>;
  } else if (query.isError || !url) {
    body = (
      <Alert
        type="error"
        showIcon
        message={text.loadFailed}
        description={query.error?.message}
        action={
          <Button size="small" onClick={() => void query.refetch()}>
            {calendarPermissionText.retry}
          </Button>
        }
      />
    );
  } else {
    body = (
      <Flex vertical gap={12}>
        <label className="calendar-permission__label" htmlFor="calendar-feed-url">
          {text.address}
        </label>
        <Space.Compact style={{ width: "100%" }}>
          <Input id="calendar-feed-url" value={url} readOnly onFocus={(event) => event.target.select()} />
          <Button icon={<CopyOutlined aria-hidden />} aria-label={text.copy} onClick={() => void copy()}>
            {text.copyShort}
          </Button>
        </Space.Compact>
        <Alert type="warning" showIcon message={text.secret} />
        <div>
          <Button icon={<ReloadOutlined aria-hidden />} onClick={confirmRotate}>
            {text.rotate}
          </Button>
        </div>
        <HowToSubscribe />
      </Flex>
    );
  }

  return (
    <Card title={<h2 className="calendar-permission__card-title">{text.title}</h2>} className="calendar-permission__card">
      <Typography.Paragraph>{text.intro}</Typography.Paragraph>
      {body}
    </Card>
  );
}
