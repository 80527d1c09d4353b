import { useLogout } from "@refinedev/core";
import { Button, Card, Flex, Typography } from "antd";
import { strings } from "../../config/strings";
import { CreateOrganizationForm } from "./create-organization-form";
import { useCreateOrganization } from "./use-create-organization";

/** Signed in without any organisation: everything belongs to one, so the first step is creating it. */
export function CreateFirstOrganization() {
  const { mutate: logout } = useLogout();
  const { form, error, isLoading, onFinish } = useCreateOrganization(() => undefined);

  return (
    <Flex align="center" justify="center" style={{ minHeight: "100vh", padding: 24 }}>
      <Card style={{ width: 420, maxWidth: "100%" }}>
        <Typography.Title level={3} style={{ marginTop: 0 }}>
          {strings.organization.firstTitle}
        </Typography.Title>
        <Typography.Paragraph type="secondary">{strings.organization.firstBody}</Typography.Paragraph>
        <CreateOrganizationForm form={form} onFinish={onFinish} error={error} />
        <Flex justify="space-between" align="center">
          <Button type="link" style={{ paddingInline: 0 }} onClick={() => logout()}>
            {strings.auth.signOut}
          </Button>
          <Button type="primary" loading={isLoading} onClick={() => form.submit()}>
            {strings.organization.createOk}
          </Button>
        </Flex>
      </Card>
    </Flex>
  );
}
