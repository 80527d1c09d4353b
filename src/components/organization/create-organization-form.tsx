import { Alert, Form, Input } from "antd";
import type { FormInstance } from "antd";
import { strings } from "../../config/strings";

export interface CreateOrganizationValues {
  name: string;
}

/** The one field of a new organisation; shared by the dialog and the first-organisation card. */
export function CreateOrganizationForm({
  form,
  onFinish,
  error,
}: {
  form: FormInstance<CreateOrganizationValues>;
  onFinish: (values: CreateOrganizationValues) => void;
  error: string | null;
}) {
  return (
    <Form<CreateOrganizationValues> form={form} layout="vertical" onFinish={onFinish} requiredMark={false}>
      {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 16 }} />}
      <Form.Item
        label={strings.organization.nameLabel}
        name="name"
        rules={[{ required: true, whitespace: true, message: strings.organization.nameRequired }]}
      >
        <Input autoComplete="organization" maxLength={100} autoFocus />
      </Form.Item>
    </Form>
  );
}
