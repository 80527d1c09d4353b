import { useCreate, useUpdate } from "@refinedev/core";
import { Alert, Checkbox, Form, Input, Modal, Select, Typography } from "antd";
import { useEffect, useState } from "react";
import type { Agent } from "../../../contract/agent";
import {
  AREA_CODE_PATTERN,
  PHONE_NUMBER_NAME_MAX_LENGTH,
  PHONE_NUMBER_PROVIDERS,
  TWILIO_ACCOUNT_SID_PATTERN,
  type PhoneNumber,
  type PhoneNumberCreate,
  type PhoneNumberProvider,
  type PhoneNumberUpdate,
} from "../../../contract/phone-number";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { PhoneField } from "../public/phone-field";
import "../public/public.css";
import { formatPhoneNumber } from "./format-number";

const text = strings.phoneNumbers;

interface Values {
  name: string;
  number?: string;
  provider: PhoneNumberProvider;
  area_code?: string;
  twilio_account_sid?: string;
  twilio_auth_token?: string;
  agent_id?: string | null;
  isDefault?: boolean;
}

/** Form.Item hands its child `id` and `onChange`: the public page's phone field reports E.164 ("" when empty). */
function PhoneInput({ id, onChange }: { id?: string; onChange?: (value: string) => void }) {
  return <PhoneField id={id ?? "phone-number"} onChange={({ phone, empty }) => onChange?.(empty ? "" : phone)} />;
}

/**
 * Adds a number (record undefined) or edits one. The number and provider of a saved number cannot
 * change; Twilio credentials are write-only (has_credentials says some are stored). The server's
 * reason for a refusal (a duplicate 409, a bad number 400) is shown in the modal.
 */
export function PhoneNumberModal({
  open,
  record,
  agents,
  vapiMode,
  onClose,
}: {
  open: boolean;
  record?: PhoneNumber;
  agents: Agent[];
  vapiMode: boolean;
  onClose: () => void;
}) {
  const [form] = Form.useForm<Values>();
  const [error, setError] = useState<string | null>(null);
  const { mutateAsync: create, mutation: creating } = useCreate<PhoneNumber, ApiError>();
  const { mutateAsync: update, mutation: updating } = useUpdate<PhoneNumber, ApiError>();
  const toasts = useToasts();
  const provider: PhoneNumberProvider = Form.useWatch("provider", form) ?? record?.provider ?? "vapi";
  const editing = record !== undefined;
  const areaCodeInstead = !editing && vapiMode && provider === "vapi";

  useEffect(() => {
    if (open) setError(null);
  }, [open]);

  // The modal's content is destroyed when hidden, so each opening starts from these values.
  const initialValues: Partial<Values> = record
    ? { name: record.name, provider: record.provider, agent_id: record.agent_id }
    : { name: "", provider: "vapi", agent_id: null, isDefault: false };

  const credentialsOf = (values: Values) =>
    values.twilio_account_sid && values.twilio_auth_token
      ? { credentials: { twilio_account_sid: values.twilio_account_sid.trim(), twilio_auth_token: values.twilio_auth_token } }
      : {};

  async function submit(values: Values) {
    setError(null);
    try {
      if (record) {
        const body: PhoneNumberUpdate = { name: values.name.trim(), agent_id: values.agent_id ?? null, ...(record.provider === "twilio" ? credentialsOf(values) : {}) };
        await update({
          resource: "phonenumber",
          id: record.id,
          values: body,
          successNotification: false, // page-level, below
          errorNotification: false,
        });
        toasts.notice(text.saved);
      } else {
        const body: PhoneNumberCreate = {
          name: values.name.trim(),
          provider: values.provider,
          ...(areaCodeInstead ? { area_code: values.area_code?.trim() } : { number: values.number }),
          ...(values.provider === "twilio" ? credentialsOf(values) : {}),
          agent_id: values.agent_id ?? null,
          ...(values.isDefault ? { isDefault: true } : {}),
        };
        await create({
          resource: "phonenumber",
          values: body,
          successNotification: () => ({ type: "success", message: text.created }),
          errorNotification: false,
        });
      }
      onClose();
    } catch (caught) {
      setError((caught as ApiError | undefined)?.message ?? text.saveFailed);
    }
  }

  const twilioRequired = provider === "twilio" && !record?.has_credentials;

  return (
    <Modal
      open={open}
      title={editing ? text.editTitle : text.addTitle}
      okText={editing ? text.save : text.create}
      cancelText={text.cancel}
      onOk={() => form.submit()}
      onCancel={onClose}
      confirmLoading={creating.isPending || updating.isPending}
      destroyOnHidden
    >
      {error && <Alert type="error" showIcon role="alert" message={text.saveFailed} description={error} style={{ marginBottom: 16 }} />}
      <Form form={form} layout="vertical" initialValues={initialValues} onFinish={(values) => void submit(values)} requiredMark>
        <Form.Item name="name" label={text.fields.name} rules={[{ required: true, whitespace: true, message: text.fields.nameRequired }]}>
          <Input placeholder={text.fields.namePlaceholder} maxLength={PHONE_NUMBER_NAME_MAX_LENGTH} />
        </Form.Item>
        <Form.Item name="provider" label={text.fields.provider} rules={[{ required: true }]}>
          <Select
            disabled={editing}
            options={PHONE_NUMBER_PROVIDERS.map((value) => ({ value, label: text.providers[value] }))}
          />
        </Form.Item>
        {editing ? (
          <Form.Item label={text.fields.number} extra={text.fields.numberFixed}>
            <Typography.Text>{formatPhoneNumber(record.number)}</Typography.Text>
          </Form.Item>
        ) : areaCodeInstead ? (
          <Form.Item
            name="area_code"
            label={text.fields.areaCode}
            extra={text.fields.areaCodeHint}
            rules={[{ required: true, pattern: AREA_CODE_PATTERN, message: text.fields.areaCodeInvalid }]}
          >
            <Input inputMode="numeric" maxLength={3} placeholder="415" />
          </Form.Item>
        ) : (
          <Form.Item name="number" label={text.fields.number} extra={text.fields.numberHint} rules={[{ required: true, message: text.fields.numberRequired }]}>
            <PhoneInput />
          </Form.Item>
        )}
        {provider === "twilio" && (
          <>
            {record?.has_credentials && <Alert type="success" showIcon message={text.fields.credentialsSaved} style={{ marginBottom: 16 }} />}
            <Form.Item
              name="twilio_account_sid"
              label={text.fields.accountSid}
              rules={[
                { required: twilioRequired, message: text.fields.credentialsRequired },
                { pattern: TWILIO_ACCOUNT_SID_PATTERN, message: text.fields.accountSidInvalid },
              ]}
            >
              <Input autoComplete="off" placeholder="AC…" />
            </Form.Item>
            <Form.Item
              name="twilio_auth_token"
              label={text.fields.authToken}
              extra={text.fields.credentialsHint}
              rules={[{ required: twilioRequired, message: text.fields.credentialsRequired }]}
            >
              <Input.Password autoComplete="new-password" />
            </Form.Item>
          </>
        )}
        <Form.Item name="agent_id" label={text.fields.agent}>
          <Select
            allowClear
            placeholder={text.fields.agentPlaceholder}
            options={agents.map((agent) => ({ value: agent.id, label: agent.agent_name }))}
          />
        </Form.Item>
        {!editing && (
          <Form.Item name="isDefault" valuePropName="checked">
            <Checkbox>{text.fields.makeDefault}</Checkbox>
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
