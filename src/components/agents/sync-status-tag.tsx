import { Tag, Tooltip } from "antd";
import type { Agent } from "../../../contract/agent";
import { strings } from "../../config/strings";

/** Where the agent lives: "Vapi" when the provider holds it, "Sandbox" in local mode (ARCHITECTURE.md §6). */
export function SyncStatusTag({ status }: { status: Agent["sync_status"] }) {
  const text = strings.agents.sync[status] ?? strings.agents.sync.local;
  return (
    <Tooltip title={text.hint}>
      <Tag color={status === "synced" ? "green" : "gold"} style={{ marginInlineEnd: 0 }}>
        {text.label}
      </Tag>
    </Tooltip>
  );
}
