import { List, useTable } from "@refinedev/antd";
import type { HttpError } from "@refinedev/core";
import { Button } from "antd";
import { PlusOutlined } from "@ant-design/icons";
import { useEffect, useState } from "react";
import { can } from "../../../../contract/permissions";
import type { PhoneNumber } from "../../../../contract/phone-number";
import { activeRole, useAuthSession } from "../../../auth/session";
import { PhoneNumberModal } from "../../../components/phone-numbers/phone-number-modal";
import { PhoneNumberTable } from "../../../components/phone-numbers/phone-number-table";
import { usePhoneNumberActions } from "../../../components/phone-numbers/use-phone-number-actions";
import { loadPublicConfig } from "../../../config/public-config";
import { ListLoadError } from "../../../components/list-load-error";
import { strings } from "../../../config/strings";
import { useAgentList } from "../../../hooks/use-agent-list";

const text = strings.phoneNumbers;

/** Whether numbers are created at Vapi (a vapi number then takes an area code instead of digits). */
function useVapiMode(): boolean {
  const [vapi, setVapi] = useState(false);
  useEffect(() => {
    let live = true;
    loadPublicConfig().then(
      (config) => live && setVapi(config.voiceMode === "vapi"),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return vapi;
}

/**
 * Phone Numbers: the organisation's numbers (the default first), added and edited in a modal, made the
 * default from the row, deleted by admins after a confirmation (contract/permissions.ts).
 */
export default function PhoneNumberListPage() {
  const { tableProps, tableQuery } = useTable<PhoneNumber, HttpError>({
    resource: "phonenumber",
    pagination: { pageSize: 20 },
    syncWithLocation: false,
    errorNotification: false,
  });
  const { agents } = useAgentList();
  const vapiMode = useVapiMode();
  const role = activeRole(useAuthSession());
  const { makeDefault, confirmDelete } = usePhoneNumberActions();
  const [modal, setModal] = useState<{ open: boolean; record?: PhoneNumber }>({ open: false });

  useEffect(() => {
    document.title = `${strings.screens.phoneNumbers} · ${strings.appName}`;
  }, []);

  const canCreate = can(role, "phonenumber", "create");
  const canEdit = can(role, "phonenumber", "edit");
  const add = () => setModal({ open: true });

  return (
    <List
      title={<h1 className="phone-numbers__title" style={{ margin: 0, fontSize: 20 }}>{strings.screens.phoneNumbers}</h1>}
      breadcrumb={false}
      headerButtons={
        canCreate ? (
          <Button type="primary" icon={<PlusOutlined />} onClick={add}>
            {text.add}
          </Button>
        ) : null
      }
    >
      <ListLoadError query={tableQuery} title={text.listFailed} retryLabel={text.retry} />
      <PhoneNumberTable
        tableProps={tableProps}
        agents={agents}
        loaded={tableQuery.isSuccess}
        actions={{
          onAdd: canCreate ? add : undefined,
          onEdit: canEdit ? (record) => setModal({ open: true, record }) : undefined,
          onMakeDefault: canEdit ? makeDefault : undefined,
          onDelete: can(role, "phonenumber", "delete") ? confirmDelete : undefined,
        }}
      />
      <PhoneNumberModal open={modal.open} record={modal.record} agents={agents} vapiMode={vapiMode} onClose={() => setModal({ open: false })} />
    </List>
  );
}
