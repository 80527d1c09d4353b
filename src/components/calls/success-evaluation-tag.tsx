import { Tag, Typography } from "antd";
import { useMemo } from "react";
import type { SuccessOutcome } from "../../../contract/success-outcome";
import { useAgentList } from "../../hooks/use-agent-list";
import { describeSuccessEvaluation, type SuccessRubric } from "./success-evaluation";

/** Each agent's success-evaluation rubric, by agent id, from the agent list the screen already loads. */
export function useAgentRubrics(): (agentId: string | null | undefined) => SuccessRubric | undefined {
  const { agents } = useAgentList();
  const byId = useMemo(() => new Map(agents.map((agent) => [agent.id, agent.analysis_plan?.success_evaluation_rubric])), [agents]);
  return (agentId) => (agentId ? byId.get(agentId) : undefined);
}

/**
 * A call's success evaluation in its one readable form (success-evaluation.ts): a tag, or free text,
 * which the table shortens to one line (the whole text on hover) and the call's drawer shows in full.
 */
export function SuccessEvaluation({
  value,
  rubric,
  success,
  full = false,
}: {
  value: string | null | undefined;
  rubric: SuccessRubric | undefined;
  /** The call's pass/fail as the server counted it (its colour: green is exactly a pass). */
  success?: SuccessOutcome | null;
  full?: boolean;
}) {
  const shown = describeSuccessEvaluation(value, rubric, success);
  if (!shown) return <>—</>;
  if (shown.freeText) {
    return full ? (
      <Typography.Paragraph className="call-detail__summary">{shown.label}</Typography.Paragraph>
    ) : (
      <Typography.Text className="call-logs__success-text" ellipsis={{ tooltip: shown.label }}>
        {shown.label}
      </Typography.Text>
    );
  }
  return <Tag color={shown.color}>{shown.label}</Tag>;
}
