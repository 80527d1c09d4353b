import { Button, Modal, Typography } from "antd";
import { Link } from "react-router";
import { subscriptionText } from "./strings";

const text = subscriptionText.portal;

/** The sandbox's stand-in for Stripe's customer portal: what it would manage, and a way to Billing. */
export function PortalDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal
      open={open}
      title={text.title}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          {text.close}
        </Button>
      }
    >
      <Typography.Paragraph>{text.intro}</Typography.Paragraph>
      <ul>
        {text.items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
      <Link to="/billing" onClick={onClose}>
        {text.billingLink}
      </Link>
    </Modal>
  );
}
