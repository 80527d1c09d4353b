import { Modal } from "antd";
import { strings } from "../../config/strings";
import { CreateOrganizationForm } from "./create-organization-form";
import { useCreateOrganization } from "./use-create-organization";

/** The create-organisation dialog (local mode); `onCreated` runs after the new one is active. */
export function CreateOrganizationModal({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: () => void;
}) {
  const { form, error, isLoading, onFinish, reset } = useCreateOrganization(() => {
    onClose();
    onCreated();
  });

  return (
    <Modal
      title={strings.organization.createTitle}
      open={open}
      okText={strings.organization.createOk}
      cancelText={strings.organization.cancel}
      confirmLoading={isLoading}
      onOk={() => form.submit()}
      onCancel={() => {
        reset();
        onClose();
      }}
      destroyOnHidden
    >
      <CreateOrganizationForm form={form} onFinish={onFinish} error={error} />
    </Modal>
  );
}
