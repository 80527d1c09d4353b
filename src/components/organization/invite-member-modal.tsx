import { Button, Form, Input, Modal, Select, Typography } from "antd";
import { useState } from "react";
import { ROLES, DEFAULT_INVITE_ROLE, type Role } from "../../../contract/roles";
import { strings } from "../../config/strings";
import { useInviteMember } from "../../hooks/use-invite-member";

interface InviteForm {
  email_address: string;
  role: Role;
}

/**
 * Email and role (org:member by default); closes only when the invitation went out. With local accounts
 * no email is sent: the dialog then shows the invitation link to copy and hand over.
 */
export function InviteMemberModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form] = Form.useForm<InviteForm>();
  const { send, isLoading } = useInviteMember();
  const [invited, setInvited] = useState<{ email: string; link: string } | null>(null);

  const close = () => {
    setInvited(null);
    onClose();
  };

  const submit = async (values: InviteForm) => {
    const email = values.email_address.trim();
    const answer = await send({ email_address: email, role: values.role });
    if (!answer) return;
    form.resetFields();
    // Clerk emails the invitation itself: nothing more to show.
    if (answer.invitation_url) setInvited({ email, link: answer.invitation_url });
    else close();
  };

  if (invited) {
    return (
      <Modal
        title={strings.invite.linkTitle}
        open={open}
        onCancel={close}
        destroyOnHidden
        footer={
          <Button type="primary" onClick={close}>
            {strings.invite.done}
          </Button>
        }
      >
        <Typography.Paragraph>{strings.invite.linkIntro(invited.email)}</Typography.Paragraph>
        <Typography.Paragraph copyable={{ text: invited.link }} code>
          {invited.link}
        </Typography.Paragraph>
      </Modal>
    );
  }

  return (
    <Modal
      title={strings.invite.title}
      open={open}
      okText={strings.invite.submit}
      cancelText={strings.organization.cancel}
      confirmLoading={isLoading}
      onOk={() => form.submit()}
      onCancel={close}
      destroyOnHidden
    >
      <Form<InviteForm>
        form={form}
        layout="vertical"
        initialValues={{ role: DEFAULT_INVITE_ROLE }}
        onFinish={submit}
        requiredMark={false}
      >
        <Form.Item
          label={strings.invite.emailLabel}
          name="email_address"
          rules={[{ required: true, type: "email", message: strings.auth.emailRequired }]}
        >
          <Input type="email" autoComplete="off" autoFocus />
        </Form.Item>
        <Form.Item label={strings.invite.roleLabel} name="role">
          <Select options={ROLES.map((role) => ({ value: role, label: strings.invite.roles[role] }))} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
