import { useNotification, useUpdate } from "@refinedev/core";
import { Form } from "antd";
import { useCallback, useMemo, useState } from "react";
import { DEFAULT_AGENT_CONFIG, agentUpdateSchema, type Agent } from "../../../contract/agent";
import { isApiError } from "../../providers/data/fetch-wrapper";
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
    } catch (error) {
      // The toast carries the server's detail; the form keeps what the person typed, and a 400 about
      // setting ("model_tool_id: "x" is not a tool id…") is shown under that setting too, each of several.
      const fields = isApiError(error) && error.statusCode === 400 ? settingsNamedBy(error.message) : [];
      if (fields.length > 0) form.setFields(fields.map((field) => ({ name: [field.name], errors: [field.message] })) as Parameters<typeof form.setFields>[0]);
    }
  }, [agent.id, form, open, saved, toasts, update]);

  return { form, initialValues: saved, isDirty, isSaving: mutation.isPending, save };
}

/**
 * The top-level settings a server 400 names, each with the rest of its sentence: the detail is one clause
 * per problem ("model_tool_id: …; voice.speed: …"), joined by "; " before the next "name: ".
 */
function settingsNamedBy(detail: string): { name: keyof typeof DEFAULT_AGENT_CONFIG; message: string }[] {
  return detail.split(/; (?=[A-Za-z_.]+: )/).flatMap((clause) => {
    const match = /^([A-Za-z_]+): (.+)$/s.exec(clause);
    if (!match?.[1] || !match[2] || !Object.hasOwn(DEFAULT_AGENT_CONFIG, match[1])) return [];
    const name = match[1] as keyof typeof DEFAULT_AGENT_CONFIG;
    const value = DEFAULT_AGENT_CONFIG[name];
    // The nested plans are edited field by field: their errors stay in the toast.
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return [];
    return [{ name, message: match[2] }];
  });
}
