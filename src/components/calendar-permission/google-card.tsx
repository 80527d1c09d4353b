import { GoogleOutlined } from "@ant-design/icons";
import { Alert, App, Button, Card, Descriptions, Flex, Skeleton, Spin, Tag, Typography } from "antd";
import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import type { CalendarConnection } from "../../../contract/calendar";
import { CALENDAR_PERMISSION_PAGE } from "../../../contract/calendar-shared";
import { usePublicUrl } from "../../hooks/use-public-url";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { LinkWithCopy } from "../agents/copy-link";
import { calendarPermissionText } from "./strings";
import { browserNavigation, useCalendarActions, useCalendarConnections } from "./use-calendar-permission";

const text = calendarPermissionText.google;
const messageOf = (error: unknown) => (error as ApiError | undefined)?.message;

/**
 * Google's answer in this page's address (it is the OAuth redirect_uri): `code` and `state` after the
 * person allowed access, `error` when they did not. Posted once (a re-render or React's double effect
 * must not send the single-use state twice), then taken out of the address so a reload sends nothing.
 */
function useGoogleReturn(onConnected: (connection: CalendarConnection) => void) {
  const [params, setParams] = useSearchParams();
  const { finishGoogle } = useCalendarActions();
  // The latest callbacks, without making the effect below run again when they change.
  const latest = useRef({ finishGoogle, onConnected });
  useEffect(() => {
    latest.current = { finishGoogle, onConnected };
  });
  const sent = useRef<string | null>(null);
  const [completing, setCompleting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const code = params.get("code");
  const state = params.get("state");
  const denied = params.get("error");

  useEffect(() => {
    if (denied && !code) {
      setFailure(text.deniedAtGoogle);
      setParams({}, { replace: true });
      return;
    }
    if (!code || !state || sent.current === state) return;
    sent.current = state;
    setCompleting(true);
    setFailure(null);
    setParams({}, { replace: true });
    latest.current.finishGoogle(code, state).then(
      (connection) => {
        setCompleting(false);
        latest.current.onConnected(connection);
      },
      (error: unknown) => {
        setCompleting(false);
        setFailure(messageOf(error) ?? text.connectFailed);
      },
    );
  }, [code, state, denied, setParams]);

  return { completing, failure, clearFailure: () => setFailure(null) };
}

/**
 * Google is not set up on this server. An admin reads how (the operator's steps, with the redirect URI on the
 * server's PUBLIC_URL, which is what Google must be given whatever name this browser reached the server by);
 * a member reads one sentence: environment variables and restarts are not theirs to do.
 */
function NotConfigured({ canManage }: { canManage: boolean }) {
  if (!canManage) return <Alert type="info" showIcon message={text.notConfiguredTitle} description={text.notConfiguredMember} />;
  return <SetupSteps />;
}

function SetupSteps() {
  const publicUrl = usePublicUrl();
  return (
    <Alert
      type="info"
      showIcon
      className="calendar-permission__setup"
      message={text.notConfiguredTitle}
      description={
        <>
          <p>{text.notConfiguredIntro}</p>
          <ol className="calendar-permission__steps">
            {text.setupSteps.map((step) => (
              <li key={step}>{step}</li>
            ))}
          </ol>
          <label className="calendar-permission__label" htmlFor="google-redirect-uri">
            {text.redirectUri}
          </label>
          {publicUrl ? (
            <LinkWithCopy id="google-redirect-uri" link={`${publicUrl}${CALENDAR_PERMISSION_PAGE}`} copyLabel={text.copyRedirectUri} />
          ) : (
            <Skeleton.Input active block size="small" aria-busy="true" aria-label={text.redirectUriLoading} />
          )}
          <p className="calendar-permission__scopes">
            <strong>{text.scopes}:</strong> {text.scopeList}
          </p>
          <p style={{ marginBottom: 0 }}>{text.meanwhile}</p>
        </>
      }
    />
  );
}

function ConnectionDetails({ connection }: { connection: CalendarConnection }) {
  return (
    <Descriptions
      size="small"
      column={1}
      items={[
        { key: "account", label: text.account, children: connection.account_email ?? "—" },
        { key: "calendar", label: text.calendar, children: connection.calendar === "primary" ? text.primaryCalendar : connection.calendar },
        {
          key: "status",
          label: text.status,
          children: connection.status === "connected" ? <Tag color="green">{text.statusConnected}</Tag> : <Tag color="red">{text.statusError}</Tag>,
        },
        { key: "since", label: text.connectedSince, children: new Date(connection.connected_at).toLocaleString() },
      ]}
    />
  );
}

/**
 * Google Calendar's card: when the server has no keys, how to set it up (admins) or whom to ask (members); otherwise Connect (admins, to
 * Google's consent page), completing the flow when Google sends the browser back here, the connected
 * account and its status, Reconnect when Google stopped accepting the permission, and Disconnect.
 */
export function GoogleCard({ canManage, permissionKnown }: { canManage: boolean; permissionKnown: boolean }) {
  const { modal } = App.useApp();
  const toasts = useToasts();
  const { connections, googleConfigured, query } = useCalendarConnections();
  const { startGoogle, disconnect, pending } = useCalendarActions();
  const [starting, setStarting] = useState(false);
  const refetch = query.refetch;
  const { completing, failure, clearFailure } = useGoogleReturn((connection) => {
    toasts.success(text.connected(connection.account_email));
    void refetch();
  });

  const connect = async () => {
    clearFailure();
    setStarting(true);
    try {
      const { url } = await startGoogle();
      browserNavigation.assign(url);
    } catch (error) {
      setStarting(false);
      toasts.error(text.startFailed, messageOf(error));
    }
  };

  const confirmDisconnect = (connection: CalendarConnection) =>
    modal.confirm({
      title: text.disconnectConfirmTitle,
      content: text.disconnectConfirmBody,
      okText: text.disconnect,
      okButtonProps: { danger: true },
      cancelText: text.cancel,
      onOk: async () => {
        try {
          const result = await disconnect(connection.id);
          if (result.revoked) toasts.success(text.disconnected);
          else toasts.error(text.disconnectedNotRevoked, text.disconnectedNotRevokedHint(result.revoke_error));
        } catch (error) {
          toasts.error(text.disconnectFailed, messageOf(error));
        }
        void refetch();
      },
    });

  const google = connections?.find((connection) => connection.provider === "google");
  let body;
  if (completing) {
    body = (
      <Flex align="center" gap={12} role="status">
        <Spin />
        <span>{text.completing}</span>
      </Flex>
    );
  } else if (query.isLoading) {
    body = <Skeleton active paragraph={{ rows: 3 }} title={false} aria-busy="true" aria-label={text.loading} />;
  } else if (query.isError) {
    body = (
      <Alert
        type="error"
        showIcon
        message={text.loadFailed}
        description={query.error?.message}
        action={
          <Button size="small" onClick={() => void refetch()}>
            {calendarPermissionText.retry}
          </Button>
        }
      />
    );
  } else {
    // The page's main action while nothing works yet; beside a working connection, a plain button.
    const connectButton = (label: string, primary = true) =>
      canManage && googleConfigured ? (
        <Button type={primary ? "primary" : "default"} icon={<GoogleOutlined aria-hidden />} loading={starting} onClick={() => void connect()}>
          {label}
        </Button>
      ) : null;
    body = (
      <Flex vertical gap={16}>
        {googleConfigured === false && permissionKnown && <NotConfigured canManage={canManage} />}
        {google ? (
          <>
            {google.status === "error" && (
              <Alert type="error" showIcon message={text.problemTitle} description={google.last_error} action={connectButton(text.reconnect)} />
            )}
            {google.status === "connected" && google.last_error && <Alert type="warning" showIcon message={text.warningTitle} description={google.last_error} />}
            <ConnectionDetails connection={google} />
            {canManage && (
              <Flex gap={8} wrap>
                {google.status === "connected" && connectButton(text.reconnect, false)}
                <Button danger loading={pending && !starting} onClick={() => confirmDisconnect(google)}>
                  {text.disconnect}
                </Button>
              </Flex>
            )}
          </>
        ) : (
          googleConfigured && (
            <>
              <Typography.Paragraph style={{ marginBottom: 0 }}>{text.notConnected}</Typography.Paragraph>
              {canManage && <div>{connectButton(text.connect)}</div>}
            </>
          )
        )}
        {/* Not set up, a member's sentence above already says whom to ask. */}
        {permissionKnown && !canManage && googleConfigured !== false && (
          <Typography.Text type="secondary">{calendarPermissionText.membersReadOnly}</Typography.Text>
        )}
      </Flex>
    );
  }

  return (
    <Card title={<h2 className="calendar-permission__card-title">{text.title}</h2>} className="calendar-permission__card">
      {failure && (
        <Alert
          type="error"
          showIcon
          closable
          onClose={clearFailure}
          style={{ marginBottom: 16 }}
          message={text.connectFailed}
          description={failure}
          action={
            canManage && googleConfigured ? (
              <Button size="small" onClick={() => void connect()}>
                {calendarPermissionText.retry}
              </Button>
            ) : undefined
          }
        />
      )}
      {body}
    </Card>
  );
}
