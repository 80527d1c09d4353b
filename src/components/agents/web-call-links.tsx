import { DeleteOutlined, PlusOutlined } from "@ant-design/icons";
import { useNotification } from "@refinedev/core";
import { Alert, Button, Flex, Popconfirm, Skeleton, Typography } from "antd";
import { useState } from "react";
import type { Agent } from "../../../contract/agent";
import type { WebCallLink } from "../../../contract/web-call";
import { strings } from "../../config/strings";
import { LinkWithCopy } from "./copy-link";
import { CreateWebCallLinkModal } from "./create-web-call-link-modal";
import { useWebCallLinks, webCallLinkUrl } from "./use-web-call-links";
import "./web-call-links.css";

const text = strings.agents.webCallLinks;

function WebCallLinkItem({ link, onDelete, disabled }: { link: WebCallLink; onDelete: (link: WebCallLink) => Promise<void>; disabled?: boolean }) {
  return (
    <li className="web-call-links__item">
      <Flex align="baseline" justify="space-between" gap={8}>
        <Typography.Text strong ellipsis>
          {link.call_title}
        </Typography.Text>
        <Typography.Text type="secondary" ellipsis>
          {text.forRecipient(link.recipient_name)}
        </Typography.Text>
      </Flex>
      <Flex gap={4} style={{ marginTop: 4 }}>
        <LinkWithCopy link={webCallLinkUrl(link.slug)} label={text.link(link.call_title)} copyLabel={text.copy(link.call_title)} />
        {!disabled && (
          <Popconfirm
            title={text.deleteConfirm}
            description={text.deleteConfirmBody}
            okText={strings.agents.delete}
            okButtonProps={{ danger: true }}
            cancelText={strings.agents.cancel}
            onConfirm={() => onDelete(link)}
          >
            <Button type="text" danger icon={<DeleteOutlined />} aria-label={text.delete(link.call_title)} />
          </Popconfirm>
        )}
      </Flex>
    </li>
  );
}

/**
 * This agent's web-call links: each page's address with a copy button and delete (after a
 * confirmation), and "New web-call link". Whoever may edit agents makes and removes links.
 */
export function WebCallLinks({ agent, disabled }: { agent: Agent; disabled?: boolean }) {
  const { links, isLoading, isError, retry, create, remove } = useWebCallLinks(agent.id);
  const { open: notify } = useNotification();
  // A new key for each opening: the form starts from the defaults again.
  const [modal, setModal] = useState({ open: false, key: 0 });

  const deleteLink = async (link: WebCallLink) => {
    try {
      await remove(link);
      notify?.({ type: "success", message: text.deleted });
    } catch (error) {
      notify?.({ type: "error", message: text.deleteFailed, description: (error as Error)?.message });
    }
  };

  let body;
  if (isLoading)
    body = (
      <div role="status" aria-label={text.loading}>
        <Skeleton active title={false} paragraph={{ rows: 2 }} />
      </div>
    );
  else if (isError)
    body = (
      <Alert
        type="warning"
        showIcon
        message={text.listFailed}
        action={
          <Button size="small" onClick={retry}>
            {text.retry}
          </Button>
        }
      />
    );
  else if (links.length === 0) body = <Typography.Paragraph type="secondary">{text.empty}</Typography.Paragraph>;
  else
    body = (
      <ul className="web-call-links" aria-labelledby="web-call-links-title">
        {links.map((link) => (
          <WebCallLinkItem key={link.id} link={link} onDelete={deleteLink} disabled={disabled} />
        ))}
      </ul>
    );

  return (
    <section aria-labelledby="web-call-links-title">
      <Flex align="center" justify="space-between" gap={8} wrap style={{ marginBottom: 8 }}>
        <h3 id="web-call-links-title" className="web-call-links__title">
          {text.title}
        </h3>
        <Button icon={<PlusOutlined aria-hidden />} disabled={disabled} onClick={() => setModal(({ key }) => ({ open: true, key: key + 1 }))}>
          {text.newLink}
        </Button>
      </Flex>
      <Typography.Paragraph type="secondary">{text.intro}</Typography.Paragraph>
      {body}
      <CreateWebCallLinkModal
        key={modal.key}
        agent={agent}
        open={modal.open}
        onCreate={create}
        onClose={() => setModal((current) => ({ ...current, open: false }))}
      />
    </section>
  );
}
