import { useNotification, useUpdate } from "@refinedev/core";
import { Form } from "antd";
import { useCallback, useMemo, useState } from "react";
import { agentUpdateSchema, type Agent } from "../../../contract/agent";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";
import { changedSettings, issuesAsFieldErrors, toFormValues, type AgentFormValues } from "./agent-form/form-values";

/**
 * The editor's state for one agent: the form, what is saved, whether something is not, and save.
 * A save sends only the changed settings (PUT /agent/{id}), after the contract's schema accepts them.
 */
export function useAgentEditor(agent: Agent) {
  const [form] = Form.useForm<AgentFormValues>();
  const [saved, setSaved] = useState<AgentFormValues>(() => toFormValues(agent));
  const current = Form.useWatch((values: AgentFormValues) => values, { form, preserve: true });
  const changes = useMemo(() => (current ? changedSettings(saved, current) : {}), [saved, current]);
  const isDirty = Object.keys(changes).length > 0;
  const { open } = useNotification();
  const toasts = useToasts();
  const { mutateAsync: update, mutation } = useUpdate<Agent>();

  const save = useCallback(async () => {
    try {
      await form.validateFields();
    } catch {
      open?.({ type: "error", message: strings.agents.invalid });
      return;
    }
    const payload = changedSettings(saved, form.getFieldsValue(true) as AgentFormValues);
    if (Object.keys(payload).length === 0) return;
    const checked = agentUpdateSchema.safeParse(payload);
    if (!checked.success) {
      form.setFields(issuesAsFieldErrors(checked.error) as Parameters<typeof form.setFields>[0]);
      open?.({ type: "error", message: strings.agents.invalid });
      return;
    }
    try {
      const { data } = await update({
        resource: "agent",
        id: agent.id,
        values: payload,
        // Page-level (1 s, top-center), said below once the form holds the saved values.
        successNotification: false,
        errorNotification: (error) => ({
          type: "error",
          message: strings.agents.saveFailed,
          description: error?.message,
        }),
      });
      const next = toFormValues(data);
      setSaved(next);
      form.setFieldsValue(next);
      toasts.notice(strings.agents.saved);
    } catch {
      // The toast carries the server's detail; the form keeps what the person typed.
    }
  }, [agent.id, form, open, saved, toasts, update]);

  return { form, initialValues: saved, isDirty, isSaving: mutation.isPending, save };
}
