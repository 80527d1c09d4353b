import { ArrowDownOutlined, ArrowUpOutlined, DeleteOutlined, PlusOutlined } from "@ant-design/icons";
import { Alert, Button, Flex, Form, Input, Modal, Select, Typography, type FormInstance, type FormRule } from "antd";
import { useState } from "react";
import type { z } from "zod";
import type { Agent } from "../../../contract/agent";
import {
  WEB_CALL_ICONS,
  WEB_CALL_LIMITS,
  webCallCreateSchema,
  webCallInstructionInputSchema,
  type WebCallCreate,
  type WebCallIcon,
  type WebCallLink,
} from "../../../contract/web-call";
import { strings } from "../../config/strings";
import { Icon } from "../public/icons";
import { LinkWithCopy } from "./copy-link";
import { webCallLinkUrl } from "./use-web-call-links";

const text = strings.agents.webCallLinks;

interface InstructionValues {
  icon: WebCallIcon;
  title: string;
  description: string;
}

type FieldPath = Parameters<FormInstance<WebCallLinkFormValues>["setFields"]>[0][number]["name"];

export interface WebCallLinkFormValues {
  call_title: string;
  recipient_name: string;
  sub_title: string;
  instructions: InstructionValues[];
}

/** What the form starts with: "Talk to <agent>", no recipient, a subtitle and three instructions. */
export function defaultWebCallLinkValues(agentName: string): WebCallLinkFormValues {
  return {
    call_title: text.defaults.callTitle(agentName.trim() || "our assistant").slice(0, WEB_CALL_LIMITS.callTitle),
    recipient_name: "",
    sub_title: text.defaults.subTitle,
    instructions: text.defaults.instructions.map((instruction) => ({ ...instruction })),
  };
}

const ICON_NAMES: Record<WebCallIcon, string> = text.icons;
const ICON_OPTIONS = WEB_CALL_ICONS.map((icon) => ({ value: icon, label: ICON_NAMES[icon] }));

/** The contract's message, with the field's API name at its start read as the form's label ("call_title is required" → "Call title is required"). */
export function readableMessage(message: string): string {
  return message.replace(/^[a-z_]+/, (name) => text.fieldNames[name] ?? name);
}

/** A form rule that checks one field with its part of the contract's schema. */
function schemaRule(schema: z.ZodType): FormRule {
  return {
    validator: async (_rule, value: unknown) => {
      const result = schema.safeParse(value);
      if (!result.success) throw new Error(readableMessage(result.error.issues[0]?.message ?? ""));
    },
  };
}

const rules = {
  call_title: [schemaRule(webCallCreateSchema.shape.call_title)],
  recipient_name: [schemaRule(webCallCreateSchema.shape.recipient_name)],
  sub_title: [schemaRule(webCallCreateSchema.shape.sub_title)],
  icon: [schemaRule(webCallInstructionInputSchema.shape.icon)],
  title: [schemaRule(webCallInstructionInputSchema.shape.title)],
  description: [schemaRule(webCallInstructionInputSchema.shape.description)],
};

function IconLabel({ icon, label }: { icon: unknown; label: unknown }) {
  return (
    <Flex align="center" gap={8}>
      <Icon name={String(icon)} size={16} />
      <span>{String(label ?? icon)}</span>
    </Flex>
  );
}

/**
 * New web-call link (POST /webcall/): call title, recipient name, subtitle and an ordered list of
 * instructions, each checked with the contract's schema. On success the modal shows the link to copy.
 * Mount it afresh (a new `key`) for each opening: the form starts from the defaults every time.
 */
export function CreateWebCallLinkModal({
  agent,
  open,
  onCreate,
  onClose,
}: {
  agent: Agent;
  open: boolean;
  onCreate: (values: WebCallCreate) => Promise<WebCallLink>;
  onClose: () => void;
}) {
  const [form] = Form.useForm<WebCallLinkFormValues>();
  const [initialValues] = useState(() => defaultWebCallLinkValues(agent.agent_name));
  const [isCreating, setIsCreating] = useState(false);
  const [problem, setProblem] = useState<{ message: string; detail?: string } | null>(null);
  const [created, setCreated] = useState<WebCallLink | null>(null);

  const submit = async () => {
    if (isCreating) return;
    setProblem(null);
    try {
      await form.validateFields();
    } catch {
      return; // each field shows its message
    }
    const values = form.getFieldsValue(true) as WebCallLinkFormValues;
    const parsed = webCallCreateSchema.safeParse({
      agent_id: agent.id,
      call_title: values.call_title,
      recipient_name: values.recipient_name,
      sub_title: values.sub_title ?? "",
      instructions: (values.instructions ?? []).map(({ icon, title, description }) => ({ icon, title, description: description ?? "" })),
    });
    if (!parsed.success) {
      // The fields' rules catch nearly everything; what is left (the list's length, the agent) shows above the form.
      const onFields = parsed.error.issues.filter((issue) => issue.path.length > 1 || (issue.path.length === 1 && issue.path[0] !== "agent_id" && issue.path[0] !== "instructions"));
      form.setFields(
        onFields.map((issue) => ({ name: issue.path as FieldPath, errors: [readableMessage(issue.message)] })),
      );
      const rest = parsed.error.issues.filter((issue) => !onFields.includes(issue));
      if (rest.length > 0) setProblem({ message: text.failed, detail: rest.map((issue) => readableMessage(issue.message)).join(" ") });
      return;
    }
    setIsCreating(true);
    try {
      setCreated(await onCreate(parsed.data));
    } catch (error) {
      setProblem({ message: text.failed, detail: (error as Error)?.message || strings.errors.network });
    } finally {
      setIsCreating(false);
    }
  };

  const footer = created
    ? [
        <Button key="done" type="primary" onClick={onClose}>
          {text.done}
        </Button>,
      ]
    : [
        <Button key="cancel" onClick={onClose}>
          {strings.agents.cancel}
        </Button>,
        <Button key="create" type="primary" loading={isCreating} onClick={() => void submit()}>
          {text.create}
        </Button>,
      ];

  return (
    <Modal title={text.modalTitle} open={open} footer={footer} onCancel={onClose} width={640} destroyOnHidden maskClosable={!isCreating}>
      {created ? (
        <Flex vertical gap={12}>
          <Alert type="success" showIcon message={text.created} description={text.createdHint} />
          <label htmlFor="web-call-link-created">
            <Typography.Text strong>{created.call_title}</Typography.Text>
          </label>
          <LinkWithCopy id="web-call-link-created" link={webCallLinkUrl(created.slug)} copyLabel={text.copy(created.call_title)} />
        </Flex>
      ) : (
        <Form form={form} name="web-call-link" layout="vertical" initialValues={initialValues} onFinish={() => void submit()}>
          {problem && <Alert type="error" showIcon message={problem.message} description={problem.detail} style={{ marginBottom: 16 }} />}
          <Form.Item name="call_title" label={text.callTitle} required rules={rules.call_title}>
            <Input maxLength={WEB_CALL_LIMITS.callTitle} showCount />
          </Form.Item>
          <Form.Item name="recipient_name" label={text.recipientName} extra={text.recipientNameHint} required rules={rules.recipient_name}>
            <Input maxLength={WEB_CALL_LIMITS.recipientName} placeholder={text.recipientNamePlaceholder} showCount />
          </Form.Item>
          <Form.Item name="sub_title" label={text.subTitle} rules={rules.sub_title}>
            <Input.TextArea maxLength={WEB_CALL_LIMITS.subTitle} rows={2} showCount />
          </Form.Item>

          <Typography.Text strong>{text.instructions}</Typography.Text>
          <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
            {text.instructionsHint(WEB_CALL_LIMITS.instructions)}
          </Typography.Paragraph>
          <Form.List name="instructions">
            {(fields, { add, remove, move }) => (
              <>
                <ol className="web-call-instructions">
                  {fields.map((field, index) => {
                    const position = index + 1;
                    return (
                      <li key={field.key} className="web-call-instructions__item">
                        <fieldset className="web-call-instruction">
                          <legend className="web-call-instruction__legend">{text.instruction(position)}</legend>
                          <Flex className="web-call-instruction__actions" gap={4}>
                            <Button
                              size="small"
                              type="text"
                              icon={<ArrowUpOutlined />}
                              aria-label={text.moveUp(position)}
                              disabled={index === 0}
                              onClick={() => move(index, index - 1)}
                            />
                            <Button
                              size="small"
                              type="text"
                              icon={<ArrowDownOutlined />}
                              aria-label={text.moveDown(position)}
                              disabled={index === fields.length - 1}
                              onClick={() => move(index, index + 1)}
                            />
                            <Button
                              size="small"
                              type="text"
                              danger
                              icon={<DeleteOutlined />}
                              aria-label={text.remove(position)}
                              onClick={() => remove(index)}
                            />
                          </Flex>
                          <Flex gap={12} wrap>
                            <Form.Item name={[field.name, "icon"]} label={text.icon} required rules={rules.icon} style={{ width: 180 }}>
                              <Select
                                options={ICON_OPTIONS}
                                optionRender={(option) => <IconLabel icon={option.value} label={option.label} />}
                                labelRender={(option) => <IconLabel icon={option.value} label={option.label} />}
                              />
                            </Form.Item>
                            <Form.Item
                              name={[field.name, "title"]}
                              label={text.instructionTitle}
                              required
                              rules={rules.title}
                              style={{ flex: 1, minWidth: 200 }}
                            >
                              <Input maxLength={WEB_CALL_LIMITS.instructionTitle} />
                            </Form.Item>
                          </Flex>
                          <Form.Item name={[field.name, "description"]} label={text.instructionDescription} rules={rules.description}>
                            <Input.TextArea maxLength={WEB_CALL_LIMITS.instructionDescription} rows={2} />
                          </Form.Item>
                        </fieldset>
                      </li>
                    );
                  })}
                </ol>
                <Flex align="center" gap={12}>
                  <Button
                    icon={<PlusOutlined aria-hidden />}
                    disabled={fields.length >= WEB_CALL_LIMITS.instructions}
                    onClick={() => add({ icon: "info", title: "", description: "" } satisfies InstructionValues)}
                  >
                    {text.addInstruction}
                  </Button>
                  {fields.length >= WEB_CALL_LIMITS.instructions && (
                    <Typography.Text type="secondary">{text.maxInstructions(WEB_CALL_LIMITS.instructions)}</Typography.Text>
                  )}
                </Flex>
              </>
            )}
          </Form.List>
        </Form>
      )}
    </Modal>
  );
}
