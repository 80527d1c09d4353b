import { useCustomMutation, useInvalidate } from "@refinedev/core";
import { Card, Flex, Switch, Typography } from "antd";
import { useState } from "react";
import { Link } from "react-router";
import { apiPaths } from "../../../contract/api";
import type { Agent } from "../../../contract/agent";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";

const text = strings.agents.appointments;
/** The calendar's own words stay out of src/config/strings.ts (its chunk's); this link is the agent page's one. */
const SET_AVAILABILITY = "Set availability";

/** /calendar with this agent's availability open (its own rules, else the organisation's it inherits). */
export const agentAvailabilityLink = (agentId: string) => `/calendar?availability=${encodeURIComponent(agentId)}`;

/** appointment_enable, switched at once with PUT /agent/{id}/appointment-toggle (spec §4, §7). */
export function AppointmentsCard({ agent, disabled }: { agent: Agent; disabled?: boolean }) {
  const { mutate, mutation } = useCustomMutation();
  const invalidate = useInvalidate();
  const toasts = useToasts();
  const [enabled, setEnabled] = useState(agent.appointment_enable);

  const toggle = (next: boolean) => {
    setEnabled(next);
    mutate(
      {
        url: apiPaths.agentAppointmentToggle(agent.id),
        method: "put",
        values: { appointment_enable: next },
        successNotification: false, // page-level, below
        errorNotification: (error) => ({ type: "error", message: text.failed, description: error?.message }),
      },
      {
        onSuccess: () => {
          toasts.notice(next ? text.enabled : text.disabled);
          void invalidate({ resource: "agent", id: agent.id, invalidates: ["detail"] });
        },
        onError: () => setEnabled(!next),
      },
    );
  };

  return (
    <Card title={<h2 className="agent-section__title">{strings.agents.sections.appointments}</h2>} className="agent-section">
      <Flex align="center" gap={12}>
        <Switch
          id="agent-appointments"
          checked={enabled}
          loading={mutation.isPending}
          disabled={disabled}
          onChange={toggle}
        />
        <label htmlFor="agent-appointments">{text.label}</label>
        <Link to={agentAvailabilityLink(agent.id)} style={{ marginLeft: "auto" }}>
          {SET_AVAILABILITY}
        </Link>
      </Flex>
      <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 0 }}>
        {text.hint}
      </Typography.Paragraph>
    </Card>
  );
}
