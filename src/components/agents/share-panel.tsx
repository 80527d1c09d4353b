import { useUpdate } from "@refinedev/core";
import { Card, Divider, Flex, Form, Switch, Typography } from "antd";
import { useState, type ReactNode } from "react";
import { Link } from "react-router";
import type { Agent } from "../../../contract/agent";
import { publicOrigin } from "../../config/public-config";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";
import { LinkWithCopy } from "./copy-link";
import { useDefaultPhoneNumber } from "./use-web-call-links";
import { WebCallLinks } from "./web-call-links";

const text = strings.agents.share;

/** Where a person adds phone numbers (the phonenumber resource's list). */
const PHONE_NUMBERS_PATH = "/phone-numbers";

/**
 * The links a person hands out for an agent. The public page takes `?pid=<phone number id>`: the number
 * its calls come from (the organisation's default); without one the link has no pid. The private clone
 * link carries the agent's clone key (`?key=`), and there is none while copying is off. Both are on the server's
 * public origin (PUBLIC_URL), whatever name this browser reached the server by.
 */
export function shareLinks(
  agentId: string,
  { origin = publicOrigin(), pid, cloneKey }: { origin?: string; pid?: string | null; cloneKey?: string | null } = {},
) {
  const id = encodeURIComponent(agentId);
  return {
    publicLink: `${origin}/public/agent/${id}${pid ? `?pid=${encodeURIComponent(pid)}` : ""}`,
    cloneLink: cloneKey ? `${origin}/agent/private/${id}?key=${encodeURIComponent(cloneKey)}` : null,
  };
}

function CopyableLink({ label, hint, link }: { label: string; hint?: ReactNode; link: string }) {
  const id = `share-${label.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <Form.Item label={label} htmlFor={id} extra={hint} style={{ marginBottom: 12 }}>
      <LinkWithCopy id={id} link={link} copyLabel={text.copy(label)} />
    </Form.Item>
  );
}

/** What the public link's hint says about the number visitors are called from. */
function usePublicLinkHint(): { pid: string | null; hint?: ReactNode } {
  const { phoneNumber, isMissing, isFailed } = useDefaultPhoneNumber();
  if (phoneNumber) return { pid: phoneNumber.id, hint: text.callsFrom(phoneNumber.name, phoneNumber.number) };
  if (isMissing) return { pid: null, hint: <Link to={PHONE_NUMBERS_PATH}>{text.noDefaultNumber}</Link> };
  if (isFailed) return { pid: null, hint: text.defaultNumberFailed };
  return { pid: null };
}

/**
 * "Anyone signed in with this link can copy this agent" (PUT clone_enabled, at once; off by default) and,
 * while it is on, the private clone link with its key. Turning it off revokes the link: on again, the
 * server makes a new key, so a link handed out before stays dead.
 */
function CloneSharing({ agent, disabled }: { agent: Agent; disabled?: boolean }) {
  const { mutate, mutation } = useUpdate<Agent>();
  const toasts = useToasts();
  const [enabled, setEnabled] = useState(agent.clone_enabled);
  const [cloneKey, setCloneKey] = useState(agent.clone_key);
  const { cloneLink } = shareLinks(agent.id, { cloneKey: enabled ? cloneKey : null });

  const setCloning = (next: boolean) => {
    setEnabled(next);
    mutate(
      {
        resource: "agent",
        id: agent.id,
        values: { clone_enabled: next },
        successNotification: false, // page-level, below (like Public's switch)
        errorNotification: (error) => ({ type: "error", message: text.publicFailed, description: error?.message }),
      },
      {
        onSuccess: ({ data }) => {
          setEnabled(data.clone_enabled);
          setCloneKey(data.clone_key);
          toasts.notice(data.clone_enabled ? text.cloneTurnedOn : text.cloneTurnedOff);
        },
        onError: () => setEnabled(!next),
      },
    );
  };

  return (
    <>
      <Flex align="center" gap={12} style={{ marginBottom: 12 }}>
        <Switch id="share-clone" checked={enabled} loading={mutation.isPending} disabled={disabled} onChange={setCloning} />
        <label htmlFor="share-clone">{text.cloneEnabled}</label>
      </Flex>
      {cloneLink ? (
        <CopyableLink label={text.cloneLink} hint={text.cloneLinkHint} link={cloneLink} />
      ) : (
        <Typography.Paragraph type="secondary">{text.cloneOffHint}</Typography.Paragraph>
      )}
    </>
  );
}

/**
 * Public on/off (PUT is_public, at once), the public link (with the default number's `?pid=`) with a
 * copy button, the consent to cloning with the private clone link, and the agent's web-call links.
 */
export function SharePanel({ agent, disabled }: { agent: Agent; disabled?: boolean }) {
  const { mutate, mutation } = useUpdate<Agent>();
  const toasts = useToasts();
  // What the person chose; the server's answer confirms it, a failure puts the switch back.
  const [isPublic, setIsPublic] = useState(agent.is_public);
  const { pid, hint } = usePublicLinkHint();
  const { publicLink } = shareLinks(agent.id, { pid });

  const setPublic = (next: boolean) => {
    setIsPublic(next);
    mutate(
      {
        resource: "agent",
        id: agent.id,
        values: { is_public: next },
        successNotification: false, // page-level, below
        errorNotification: (error) => ({ type: "error", message: text.publicFailed, description: error?.message }),
      },
      { onSuccess: () => toasts.notice(next ? text.madePublic : text.madePrivate), onError: () => setIsPublic(!next) },
    );
  };

  return (
    <Card title={<h2 className="agent-section__title">{strings.agents.sections.share}</h2>} className="agent-section">
      <Form layout="vertical" component="div">
        <Flex align="center" gap={12} style={{ marginBottom: 16 }}>
          <Switch id="share-public" checked={isPublic} loading={mutation.isPending} disabled={disabled} onChange={setPublic} />
          <label htmlFor="share-public">{text.public}</label>
        </Flex>
        <Typography.Paragraph type="secondary">{isPublic ? text.publicHint : text.privateHint}</Typography.Paragraph>
        <CopyableLink label={text.publicLink} hint={hint} link={publicLink} />
        <Divider style={{ margin: "4px 0 16px" }} />
        <CloneSharing agent={agent} disabled={disabled} />
      </Form>
      <Divider style={{ margin: "16px 0" }} />
      <WebCallLinks agent={agent} disabled={disabled} />
    </Card>
  );
}
