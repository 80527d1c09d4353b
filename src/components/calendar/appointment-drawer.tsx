import { useOne } from "@refinedev/core";
import { Alert, App, Button, DatePicker, Descriptions, Drawer, Flex, Form, Input, Skeleton, Space, Tag, Typography } from "antd";
import dayjs, { type Dayjs } from "dayjs";
import { useState } from "react";
import { Link } from "react-router";
import type { Appointment } from "../../../contract/calendar";
import { APPOINTMENT_NOTES_MAX_LENGTH, APPOINTMENT_SOURCE_LABELS, APPOINTMENT_STATUS_LABELS, type AppointmentStatus } from "../../../contract/calendar-shared";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatPhoneNumber } from "../phone-numbers/format-number";
import { agentColour, STATUS_COLOURS } from "./calendar-colours";
import { formatMoment, formatRange, isoAt, isTime, keepEnterInPicker, minutesOf, wallClock } from "./calendar-time";
import { calendarText } from "./strings";
import { useAppointmentWrites } from "./use-calendar-data";

const text = calendarText.drawer;

/** The call's drawer in Call Logs (its URL opens it over the list). */
export const callLink = (callId: string) => `/call-logs?call=${encodeURIComponent(callId)}`;

export function StatusTag({ status }: { status: AppointmentStatus }) {
  return (
    <Tag color={STATUS_COLOURS[status]} className={`cal-status cal-status--${status}`}>
      {APPOINTMENT_STATUS_LABELS[status]}
    </Tag>
  );
}

/** Notes, saved with PUT {notes}; an emptied box saves null. */
function NotesEditor({ appointment, disabled }: { appointment: Appointment; disabled: boolean }) {
  const writes = useAppointmentWrites();
  const toasts = useToasts();
  const [notes, setNotes] = useState(appointment.notes ?? "");
  const changed = notes.trim() !== (appointment.notes ?? "").trim();
  const save = async () => {
    try {
      await writes.update(appointment.id, { notes: notes.trim() || null });
      toasts.notice(text.notesSaved);
    } catch (error) {
      toasts.error(calendarText.form.failed, (error as ApiError | undefined)?.message);
    }
  };
  return (
    <Flex vertical gap={8}>
      <Input.TextArea
        aria-label={text.notes}
        rows={4}
        value={notes}
        placeholder={text.notesPlaceholder}
        maxLength={APPOINTMENT_NOTES_MAX_LENGTH}
        disabled={disabled}
        onChange={(event) => setNotes(event.target.value)}
      />
      {!disabled && (
        <Button style={{ alignSelf: "flex-start" }} disabled={!changed} loading={writes.isPending} onClick={() => void save()}>
          {text.saveNotes}
        </Button>
      )}
    </Flex>
  );
}

interface MoveValues {
  date: Dayjs;
  start: string;
  end: string;
}

/** Reschedule by typing (the keyboard's way to do what dragging does): the day and times in the zone shown. */
function RescheduleForm({ appointment, zone, onMove }: { appointment: Appointment; zone: string; onMove: (start: string, end: string) => Promise<boolean> }) {
  const [form] = Form.useForm<MoveValues>();
  const from = wallClock(appointment.start, zone);
  const until = wallClock(appointment.end, zone);
  const [busy, setBusy] = useState(false);
  const submit = async (values: MoveValues) => {
    const date = values.date.format("YYYY-MM-DD");
    setBusy(true);
    try {
      await onMove(isoAt(date, values.start, zone), isoAt(date, values.end, zone));
    } finally {
      setBusy(false);
    }
  };
  const time = [{ required: true, validator: async (_: unknown, value: string) => { if (!isTime(value ?? "")) throw new Error(calendarText.form.timeInvalid); } }];
  return (
    <Form form={form} layout="inline" className="cal-reschedule" initialValues={{ date: dayjs(from.date), start: from.time, end: until.time === "00:00" ? "24:00" : until.time }} onFinish={(values) => void submit(values)}>
      <Form.Item name="date" label={calendarText.form.date} rules={[{ required: true, message: calendarText.form.dateRequired }]}>
        <DatePicker onKeyDown={keepEnterInPicker} format="YYYY-MM-DD" allowClear={false} />
      </Form.Item>
      <Form.Item name="start" label={calendarText.form.start} rules={time}>
        <Input maxLength={5} inputMode="numeric" style={{ width: 72 }} autoComplete="off" />
      </Form.Item>
      <Form.Item
        name="end"
        label={calendarText.form.end}
        required
        dependencies={["start"]}
        rules={[
          ({ getFieldValue }) => ({
            validator: async (_, value: string) => {
              if (!isTime(value ?? "")) throw new Error(calendarText.form.timeInvalid);
              const start = getFieldValue("start") as string;
              if (isTime(start ?? "") && minutesOf(value) <= minutesOf(start)) throw new Error(calendarText.form.endAfterStart);
            },
          }),
        ]}
      >
        <Input maxLength={5} inputMode="numeric" style={{ width: 72 }} autoComplete="off" />
      </Form.Item>
      <Form.Item>
        <Button htmlType="submit" loading={busy}>
          {text.rescheduleSubmit}
        </Button>
      </Form.Item>
    </Form>
  );
}

/** The status actions: Completed and No-show for a booked one, back to booked, and Cancel (asks first). */
function StatusActions({ appointment, canEdit, canCancel, onChanged }: { appointment: Appointment; canEdit: boolean; canCancel: boolean; onChanged: () => void }) {
  const writes = useAppointmentWrites();
  const toasts = useToasts();
  const { modal } = App.useApp();
  if (appointment.status === "cancelled") return <Typography.Text type="secondary">{text.readOnlyPast}</Typography.Text>;

  const setStatus = async (status: AppointmentStatus) => {
    try {
      await writes.update(appointment.id, { status });
      toasts.success(text.statusChanged(APPOINTMENT_STATUS_LABELS[status]));
      onChanged();
    } catch (error) {
      toasts.error(text.statusFailed, (error as ApiError | undefined)?.message);
    }
  };
  const cancel = () =>
    modal.confirm({
      title: text.confirmCancel,
      content: text.confirmCancelBody(appointment.title),
      okText: text.confirmCancelOk,
      okButtonProps: { danger: true },
      cancelText: text.keep,
      onOk: async () => {
        try {
          await writes.cancel(appointment.id);
          toasts.success(text.cancelled);
          onChanged();
        } catch (error) {
          toasts.error(text.statusFailed, (error as ApiError | undefined)?.message);
        }
      },
    });

  const others: Array<[AppointmentStatus, string]> = (
    [
      ["completed", text.complete],
      ["no_show", text.noShow],
      ["booked", text.rebook],
    ] as Array<[AppointmentStatus, string]>
  ).filter(([status]) => status !== appointment.status);
  return (
    <Space wrap>
      {canEdit &&
        others.map(([status, label]) => (
          <Button key={status} disabled={writes.isPending} onClick={() => void setStatus(status)}>
            {label}
          </Button>
        ))}
      {canCancel && appointment.status === "booked" && (
        <Button danger disabled={writes.isPending} onClick={cancel}>
          {text.cancel}
        </Button>
      )}
    </Space>
  );
}

function AppointmentDetail({
  appointment,
  zone,
  canEdit,
  canCancel,
  onMove,
  onChanged,
}: {
  appointment: Appointment;
  zone: string;
  canEdit: boolean;
  canCancel: boolean;
  onMove: (start: string, end: string) => Promise<boolean>;
  onChanged: () => void;
}) {
  const open = appointment.status !== "cancelled";
  return (
    <Flex vertical gap={20}>
      <Flex wrap gap={8} align="center">
        <StatusTag status={appointment.status} />
        {appointment.outside_hours && <Tag>{calendarText.outsideHours}</Tag>}
        {appointment.synced && <Tag color="green">{text.synced}</Tag>}
      </Flex>
      <Descriptions
        size="small"
        column={1}
        items={[
          {
            key: "when",
            label: text.when,
            children: (
              <Flex vertical>
                <span>
                  {formatRange(appointment.start, appointment.end, zone)} <Typography.Text type="secondary">{text.inZone(zone)}</Typography.Text>
                </span>
                {appointment.timezone !== zone && (
                  <Typography.Text type="secondary">{text.calendarTime(formatRange(appointment.start, appointment.end, appointment.timezone), appointment.timezone)}</Typography.Text>
                )}
              </Flex>
            ),
          },
          { key: "customer", label: text.customer, children: appointment.customer_name ?? "—" },
          { key: "number", label: text.number, children: appointment.customer_number ? <a href={`tel:${appointment.customer_number}`}>{formatPhoneNumber(appointment.customer_number)}</a> : "—" },
          { key: "email", label: text.email, children: appointment.customer_email ? <a href={`mailto:${appointment.customer_email}`}>{appointment.customer_email}</a> : "—" },
          {
            key: "agent",
            label: text.agent,
            children: (
              <Flex align="center" gap={6}>
                <span className="cal-swatch" style={{ background: agentColour(appointment.agent_id) }} aria-hidden="true" />
                {appointment.agent_name ?? text.noAgent}
              </Flex>
            ),
          },
          { key: "source", label: text.source, children: APPOINTMENT_SOURCE_LABELS[appointment.source] ?? appointment.source },
          { key: "call", label: text.call, children: appointment.call_id ? <Link to={callLink(appointment.call_id)}>{text.openCall}</Link> : <Typography.Text type="secondary">{text.noCall}</Typography.Text> },
          { key: "created", label: text.created, children: formatMoment(appointment.created_at, zone) },
          { key: "updated", label: text.updated, children: formatMoment(appointment.updated_at, zone) },
        ]}
      />
      <section aria-label={text.actions}>
        <Typography.Title level={5}>{text.actions}</Typography.Title>
        <StatusActions appointment={appointment} canEdit={canEdit} canCancel={canCancel} onChanged={onChanged} />
      </section>
      {open && canEdit && appointment.status === "booked" && (
        <section aria-label={text.reschedule}>
          <Typography.Title level={5}>{text.reschedule}</Typography.Title>
          <RescheduleForm key={`${appointment.start}-${appointment.end}-${zone}`} appointment={appointment} zone={zone} onMove={onMove} />
        </section>
      )}
      <section aria-label={text.notes}>
        <Typography.Title level={5}>{text.notes}</Typography.Title>
        <NotesEditor key={appointment.updated_at} appointment={appointment} disabled={!canEdit || !open} />
      </section>
    </Flex>
  );
}

/**
 * One appointment (GET /appointment/{id}) in a drawer; the screen keeps its id in the URL (?appointment=)
 * so a dashboard card or a call can open it.
 */
export function AppointmentDrawer({
  id,
  zone,
  canEdit,
  canCancel,
  onClose,
  onMove,
  onChanged,
}: {
  id: string | undefined;
  zone: string;
  canEdit: boolean;
  canCancel: boolean;
  onClose: () => void;
  onMove: (appointment: Appointment, start: string, end: string) => Promise<boolean>;
  onChanged: () => void;
}) {
  const { result, query } = useOne<Appointment, ApiError>({
    resource: "appointment",
    id: id ?? "",
    queryOptions: { enabled: Boolean(id) },
    errorNotification: false,
  });
  const appointment = id && result?.id === id ? result : undefined;

  let body;
  if (query.isError) body = <Alert type="error" showIcon message={text.failed} description={query.error?.message} action={<Button size="small" onClick={() => void query.refetch()}>{calendarText.retry}</Button>} />;
  else if (!appointment)
    body = (
      <div role="status" aria-label={text.loading}>
        <Skeleton active />
      </div>
    );
  else body = <AppointmentDetail appointment={appointment} zone={zone} canEdit={canEdit} canCancel={canCancel} onChanged={onChanged} onMove={(start, end) => onMove(appointment, start, end)} />;

  return (
    <Drawer open={Boolean(id)} onClose={onClose} width={520} destroyOnHidden title={appointment?.title ?? text.title}>
      {body}
    </Drawer>
  );
}
