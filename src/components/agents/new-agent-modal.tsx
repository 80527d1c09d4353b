import { useCustom, useNotification } from "@refinedev/core";
import { Alert, Flex, Form, Input, Modal, Radio, Skeleton, Typography } from "antd";
import { useState } from "react";
import { useNavigate } from "react-router";
import { apiPaths } from "../../../contract/api";
import { DEFAULT_AGENT_CONFIG, type AgentTemplate, type AgentTemplateKey } from "../../../contract/agent";
import { strings } from "../../config/strings";
import { useCreateAgent } from "../../hooks/use-create-agent";

const text = strings.agents.create;

/** One card of the choice: a server template, or "blank" (only the defaults, POST /agent/). */
interface StartingPoint {
  id: string;
  name: string;
  description: string;
  template: AgentTemplateKey | null;
  /** What the agent is called when no name is typed. */
  defaultName: string;
}

/** New agent: pick a template (GET /agent/templates) or blank, optionally name it, create, open it. */
export function NewAgentModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const createAgent = useCreateAgent();
  const { open: notify } = useNotification();
  const [choice, setChoice] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [isCreating, setIsCreating] = useState(false);
  const { result, query } = useCustom<{ data: AgentTemplate[] }>({
    url: apiPaths.agentTemplates,
    method: "get",
    queryOptions: { enabled: open, staleTime: Infinity },
    errorNotification: false,
  });

  const templates = Array.isArray(result.data?.data) ? result.data.data : [];
  const choices: StartingPoint[] = templates.map(({ key, name, description, config }) => ({
    id: key,
    // As a starting point the blank template reads "Blank agent", whatever the agent it creates is called.
    name: key === "blank" ? text.blankName : name,
    description,
    template: key,
    defaultName: config?.agent_name ?? name,
  }));
  if (!templates.some((template) => template.key === "blank")) {
    choices.push({
      id: "blank",
      name: text.blankName,
      description: text.blankDescription,
      template: null,
      defaultName: DEFAULT_AGENT_CONFIG.agent_name,
    });
  }
  const selected = choices.find((candidate) => candidate.id === choice) ?? choices[0];

  const create = async () => {
    if (!selected || isCreating) return;
    setIsCreating(true);
    try {
      const agent = await createAgent(
        selected.template ? { template: selected.template, agent_name: name } : { blank: true, agent_name: name },
      );
      notify?.({ type: "success", message: text.created });
      onClose();
      setChoice(null);
      setName("");
      navigate(`/agent/${encodeURIComponent(agent.id)}`);
    } catch (error) {
      notify?.({ type: "error", message: text.failed, description: (error as Error)?.message });
    } finally {
      setIsCreating(false);
    }
  };

  return (
    <Modal
      title={text.title}
      open={open}
      okText={text.submit}
      cancelText={strings.agents.cancel}
      confirmLoading={isCreating}
      okButtonProps={{ disabled: query.isPending && open }}
      onOk={create}
      onCancel={onClose}
      width={640}
      destroyOnHidden
    >
      <Form layout="vertical" requiredMark={false} onFinish={create}>
        <Form.Item label={text.templates}>
          {query.isPending ? (
            <Skeleton active paragraph={{ rows: 4 }} />
          ) : (
            <Flex vertical gap={8}>
              {query.isError && <Alert type="warning" showIcon message={text.templatesFailed} />}
              <Radio.Group value={selected?.id} onChange={(event) => setChoice(event.target.value as string)} style={{ width: "100%" }}>
                <Flex vertical gap={8}>
                  {choices.map((template) => (
                    <Radio key={template.id} value={template.id} className="agent-template-card">
                      <Typography.Text strong>{template.name}</Typography.Text>
                      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
                        {template.description}
                      </Typography.Paragraph>
                    </Radio>
                  ))}
                </Flex>
              </Radio.Group>
            </Flex>
          )}
        </Form.Item>
        <Form.Item label={text.nameLabel} htmlFor="new-agent-name">
          <Input
            id="new-agent-name"
            value={name}
            maxLength={100}
            placeholder={selected?.defaultName ? text.namePlaceholder(selected.defaultName) : undefined}
            onChange={(event) => setName(event.target.value)}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
