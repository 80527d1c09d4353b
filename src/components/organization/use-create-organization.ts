import { Form } from "antd";
import { useState } from "react";
import { useAuthSession } from "../../auth/session";
import { strings } from "../../config/strings";
import type { CreateOrganizationValues } from "./create-organization-form";

/** Creates an organisation (which becomes the active one) and keeps the server's error for the form. */
export function useCreateOrganization(onCreated: () => void) {
  const session = useAuthSession();
  const [form] = Form.useForm<CreateOrganizationValues>();
  const [error, setError] = useState<string | null>(null);
  const [isLoading, setIsLoading] = useState(false);

  const onFinish = async ({ name }: CreateOrganizationValues) => {
    setIsLoading(true);
    setError(null);
    try {
      await session.createOrganization(name.trim());
      form.resetFields();
      onCreated();
    } catch (cause) {
      setError(cause instanceof Error && cause.message ? cause.message : strings.organization.createFailed);
    } finally {
      setIsLoading(false);
    }
  };

  const reset = () => {
    form.resetFields();
    setError(null);
  };

  return { form, error, isLoading, onFinish, reset };
}
