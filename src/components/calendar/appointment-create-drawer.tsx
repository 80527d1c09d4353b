import { Alert, Button, DatePicker, Drawer, Flex, Form, Input, Select, Typography } from "antd";
import dayjs, { type Dayjs } from "dayjs";
import { useState } from "react";
import type { Agent } from "../../../contract/agent";
import type { Appointment, AppointmentInput, Slot } from "../../../contract/calendar";
import { APPOINTMENT_NOTES_MAX_LENGTH, APPOINTMENT_TITLE_MAX_LENGTH } from "../../../contract/calendar-shared";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { PhoneField } from "../public/phone-field";
import "../public/public.css";
import { isoAt, isTime, keepEnterInPicker, minutesOf, wallClock } from "./calendar-time";
import { SlotTakenAlert, slotTakenOf, type SlotTaken } from "./slot-taken";
import { calendarText } from "./strings";
import { useAppointmentWrites } from "./use-calendar-data";

const text = calendarText.form;

/** Where a new appointment starts: the time clicked (in the zone shown) and the agent filtered on. */
export interface AppointmentDraft {
  date: string;
  start: string;
  end: string;
  agentId?: string;
  /** The time lies outside the free slots (a person may book there; agents would not). */
  outsideFree?: boolean;
}

interface Values {
  title: string;
  date: Dayjs;
  start: string;
  end: string;
  customer_name?: string;
  customer_number?: string;
  customer_email?: string;
  notes?: string;
  agent_id?: string;
}

/** Form.Item hands its child `id` and `onChange`: the phone field reports E.164 ("" when empty). */
function PhoneInput({ id, onChange }: { id?: string; onChange?: (value: string) => void }) {
  return <PhoneField id={id ?? "appointment-customer-number"} onChange={({ phone, empty }) => onChange?.(empty ? "" : phone)} />;
}

const trimmed = (value: string | undefined) => value?.trim() || undefined;

/** The POST body: the times on the zone's wall clock as instants, and only the fields given. */
function bodyOf(values: Values, zone: string, slot?: Slot): AppointmentInput {
  const date = values.date.format("YYYY-MM-DD");
  const optional = {
    customer_name: trimmed(values.customer_name),
    customer_number: trimmed(values.customer_number),
    customer_email: trimmed(values.customer_email),
    notes: trimmed(values.notes),
    agent_id: values.agent_id || undefined,
  };
  return {
    title: values.title.trim(),
    start: slot?.start ?? isoAt(date, values.start, zone),
    end: slot?.end ?? isoAt(date, values.end, zone),
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

/**
 * New appointment: a title, the day and times on the wall clock of the zone shown, the customer (name,
 * E.164 number, email), notes and the agent whose calendar it goes on. A time already taken answers with
 * the nearest free times, each bookable with one click.
 */
export function AppointmentCreateDrawer({
  draft,
  zone,
  agents,
  onClose,
  onCreated,
}: {
  draft: AppointmentDraft | null;
  zone: string;
  agents: Agent[];
  onClose: () => void;
  onCreated: (appointment: Appointment) => void;
}) {
  const [form] = Form.useForm<Values>();
  const writes = useAppointmentWrites();
  const toasts = useToasts();
  const [taken, setTaken] = useState<SlotTaken | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const close = () => {
    setTaken(null);
    setFailure(null);
    onClose();
  };

  async function submit(values: Values, slot?: Slot) {
    setTaken(null);
    setFailure(null);
    try {
      const created = await writes.create(bodyOf(values, zone, slot));
      toasts.success(text.created);
      onCreated(created);
      close();
    } catch (error) {
      const refusal = slotTakenOf(error);
      if (refusal) setTaken(refusal);
      else setFailure((error as ApiError | undefined)?.message ?? text.failed);
    }
  }

  const book = (slot: Slot) => {
    // The form shows the time booked, should this one be refused too.
    const from = wallClock(slot.start, zone);
    form.setFieldsValue({ date: dayjs(from.date), start: from.time, end: wallClock(slot.end, zone).time });
    void submit(form.getFieldsValue(true) as Values, slot);
  };

  return (
    <Drawer
      open={draft !== null}
      onClose={close}
      title={text.createTitle}
      width={480}
      destroyOnHidden
      footer={
        <Flex justify="end" gap={8}>
          <Button onClick={close}>{text.cancel}</Button>
          <Button type="primary" loading={writes.isPending} onClick={() => form.submit()}>
            {text.submit}
          </Button>
        </Flex>
      }
    >
      {draft && (
        <Form
          form={form}
          layout="vertical"
          requiredMark
          initialValues={{ title: "", date: dayjs(draft.date), start: draft.start, end: draft.end, agent_id: draft.agentId }}
          onFinish={(values) => void submit(values)}
        >
          {taken && <SlotTakenAlert taken={taken} zone={zone} actionLabel={calendarText.slotTaken.bookAt} onPick={book} busy={writes.isPending} />}
          {failure && <Alert type="error" showIcon role="alert" message={text.failed} description={failure} />}
          {draft.outsideFree && !taken && <Alert type="info" showIcon message={text.outsideFree} />}
          <Form.Item name="title" label={text.title} rules={[{ required: true, whitespace: true, message: text.titleRequired }]} style={{ marginTop: 16 }}>
            <Input placeholder={text.titlePlaceholder} maxLength={APPOINTMENT_TITLE_MAX_LENGTH} />
          </Form.Item>
          <Form.Item name="date" label={text.date} rules={[{ required: true, message: text.dateRequired }]}>
            <DatePicker onKeyDown={keepEnterInPicker} format="YYYY-MM-DD" allowClear={false} style={{ width: "100%" }} />
          </Form.Item>
          <Flex gap={12}>
            <Form.Item name="start" label={text.start} style={{ flex: 1 }} rules={[{ required: true, validator: async (_, value: string) => { if (!isTime(value ?? "") || value === "24:00") throw new Error(text.timeInvalid); } }]}>
              <Input placeholder="09:00" maxLength={5} inputMode="numeric" autoComplete="off" />
            </Form.Item>
            <Form.Item
              name="end"
              label={text.end}
              required
              style={{ flex: 1 }}
              dependencies={["start"]}
              rules={[
                ({ getFieldValue }) => ({
                  validator: async (_, value: string) => {
                    if (!isTime(value ?? "")) throw new Error(text.timeInvalid);
                    const start = getFieldValue("start") as string;
                    if (isTime(start ?? "") && minutesOf(value) <= minutesOf(start)) throw new Error(text.endAfterStart);
                  },
                }),
              ]}
            >
              <Input placeholder="09:30" maxLength={5} inputMode="numeric" autoComplete="off" />
            </Form.Item>
          </Flex>
          <Typography.Paragraph type="secondary" style={{ marginTop: -12 }}>
            {text.zoneNote(zone)}
          </Typography.Paragraph>
          <Form.Item name="customer_name" label={text.customerName}>
            <Input maxLength={200} autoComplete="off" />
          </Form.Item>
          <Form.Item name="customer_number" label={text.customerNumber} extra={text.customerNumberHint}>
            <PhoneInput />
          </Form.Item>
          <Form.Item name="customer_email" label={text.customerEmail} rules={[{ type: "email", message: text.emailInvalid }]}>
            <Input type="email" autoComplete="off" />
          </Form.Item>
          <Form.Item name="agent_id" label={text.agent} extra={text.agentHint}>
            <Select allowClear placeholder={text.agentPlaceholder} options={agents.map((agent) => ({ value: agent.id, label: agent.agent_name }))} />
          </Form.Item>
          <Form.Item name="notes" label={text.notes}>
            <Input.TextArea rows={3} maxLength={APPOINTMENT_NOTES_MAX_LENGTH} />
          </Form.Item>
        </Form>
      )}
    </Drawer>
  );
}
