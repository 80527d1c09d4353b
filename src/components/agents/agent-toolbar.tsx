import { DeleteOutlined, PlusOutlined, SaveOutlined } from "@ant-design/icons";
import { Button, Flex } from "antd";
import { useState } from "react";
import type { Agent } from "../../../contract/agent";
import { strings } from "../../config/strings";
import { AgentSwitcher } from "./agent-switcher";
import { NewAgentModal } from "./new-agent-modal";
import { SyncStatusTag } from "./sync-status-tag";

interface AgentToolbarProps {
  agent: Agent;
  isDirty: boolean;
  isSaving: boolean;
  onSave: () => void;
  /** Absent when the role may not delete agents. */
  onDelete?: () => void;
  canCreate: boolean;
  canEdit: boolean;
}

/** Which agent is open and where it lives, and what can be done with it: new, delete, save. */
export function AgentToolbar({ agent, isDirty, isSaving, onSave, onDelete, canCreate, canEdit }: AgentToolbarProps) {
  const [creating, setCreating] = useState(false);
  return (
    <Flex className="agent-toolbar" align="center" gap={12} wrap>
      <AgentSwitcher current={agent} />
      <SyncStatusTag status={agent.sync_status} />
      <Flex gap={8} wrap style={{ marginInlineStart: "auto" }}>
        {canCreate && (
          <Button icon={<PlusOutlined aria-hidden />} onClick={() => setCreating(true)}>
            {strings.agents.newAgent}
          </Button>
        )}
        {onDelete && (
          <Button danger icon={<DeleteOutlined aria-hidden />} onClick={onDelete}>
            {strings.agents.delete}
          </Button>
        )}
        {canEdit && (
          <Button
            type="primary"
            icon={<SaveOutlined aria-hidden />}
            loading={isSaving}
            disabled={!isDirty}
            title={isDirty ? undefined : strings.agents.unchanged}
            onClick={onSave}
          >
            {strings.agents.save}
          </Button>
        )}
      </Flex>
      <NewAgentModal open={creating} onClose={() => setCreating(false)} />
    </Flex>
  );
}
