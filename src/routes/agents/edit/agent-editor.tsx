import { Col, Row } from "antd";
import { can } from "../../../../contract/permissions";
import type { Agent } from "../../../../contract/agent";
import { activeRole, useAuthSession } from "../../../auth/session";
import { AgentForm } from "../../../components/agents/agent-form";
import { AgentToolbar } from "../../../components/agents/agent-toolbar";
import { AppointmentsCard } from "../../../components/agents/appointments-card";
import { SharePanel } from "../../../components/agents/share-panel";
import { UnsavedChangesGuard } from "../../../components/agents/unsaved-changes-guard";
import { useAgentEditor } from "../../../components/agents/use-agent-editor";
import { useDeleteAgent } from "../../../components/agents/use-delete-agent";
import { strings } from "../../../config/strings";
import "../../../components/agents/agents.css";

/** One agent's editor: toolbar, every setting, and what acts at once (sharing, appointments). */
export function AgentEditor({ agent }: { agent: Agent }) {
  const role = activeRole(useAuthSession());
  const canEdit = can(role, "agent", "edit");
  const editor = useAgentEditor(agent);
  const deleteAgent = useDeleteAgent(agent);

  return (
    <div className="agent-editor">
      <UnsavedChangesGuard when={editor.isDirty} />
      <h1 className="agent-editor__title">{strings.screens.editAgent}</h1>
      <AgentToolbar
        agent={agent}
        isDirty={editor.isDirty}
        isSaving={editor.isSaving}
        onSave={editor.save}
        onDelete={can(role, "agent", "delete") ? deleteAgent : undefined}
        canCreate={can(role, "agent", "create")}
        canEdit={canEdit}
      />
      <Row gutter={[24, 16]}>
        <Col xs={24} xl={16}>
          <AgentForm
            form={editor.form}
            initialValues={editor.initialValues}
            disabled={!canEdit}
            canDeleteFiles={can(role, "file", "delete")}
          />
        </Col>
        <Col xs={24} xl={8}>
          <div className="agent-editor__aside">
            <SharePanel agent={agent} disabled={!canEdit} />
            <AppointmentsCard agent={agent} disabled={!canEdit} />
          </div>
        </Col>
      </Row>
    </div>
  );
}
