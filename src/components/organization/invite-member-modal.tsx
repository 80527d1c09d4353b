import { Form, Input, Modal, Select } from "antd";
import { ROLES, DEFAULT_INVITE_ROLE, type Role } from "../../../contract/roles";
import { strings } from "../../config/strings";
import { useInviteMember } from "../../hooks/use-invite-member";

interface InviteForm {
  email_address: string;
  role: Role;
}

/** Email and role (org:member by default); closes only when the invitation went out. */
export function InviteMemberModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form] = Form.useForm<InviteForm>();
  const { invite, isLoading } = useInviteMember();

  const submit = async (values: InviteForm) => {
    if (await invite({ email_address: values.email_address.trim(), role: values.role })) {
      form.resetFields();
      onClose();
    }
  };

  return (
    <Modal
      title={strings.invite.title}
      open={open}
      okText={strings.invite.submit}
      cancelText={strings.organization.cancel}
      confirmLoading={isLoading}
      onOk={() => form.submit()}
      onCancel={onClose}
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
