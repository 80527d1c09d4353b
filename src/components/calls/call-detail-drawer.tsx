import { CopyOutlined } from "@ant-design/icons";
import { useOne, type BaseRecord } from "@refinedev/core";
import { Alert, Button, Descriptions, Drawer, Flex, Skeleton, Tag, Typography } from "antd";
import { Link } from "react-router";
import { SANDBOX_CALL_LABEL, type Call } from "../../../contract/call";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";
import { CallAppointments, callAppointmentsText } from "./call-appointments";
import { formatCost, formatDateTime, formatDuration } from "./call-format";
import { CallTranscript } from "./call-transcript";
import { formatPhoneNumber } from "../phone-numbers/format-number";
import { KeyValueList } from "./structured-data";
import { SuccessEvaluation, useAgentRubrics } from "./success-evaluation-tag";

const text = strings.callLogs.detail;
const columns = strings.callLogs.columns;

function CopyCallId({ id }: { id: string }) {
  const toasts = useToasts();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(id);
      toasts.notice(text.copied);
    } catch {
      toasts.error(text.copyFailed);
    }
  };
  return (
    <Flex align="center" gap={4}>
      <Typography.Text code>{id}</Typography.Text>
      <Button size="small" type="text" icon={<CopyOutlined />} aria-label={text.copyId} onClick={() => void copy()} />
    </Flex>
  );
}

function Recording({ label, url }: { label: string; url: string }) {
  // Native controls: play, pause and seeking, keyboard accessible, nothing to load.
  return <audio className="call-detail__audio" controls preload="metadata" src={url} aria-label={label} />;
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="call-detail__section" aria-label={title}>
      <Typography.Title level={5}>{title}</Typography.Title>
      {children}
    </section>
  );
}

/**
 * A record the call points at, by its name with a link (not a bare id): fetched on its own, so a call whose
 * number or campaign was deleted still opens, showing the id and that it is gone.
 */
function useNamed<T extends BaseRecord>(resource: string, id: string) {
  const { result, query } = useOne<T>({ resource, id, errorNotification: false, queryOptions: { retry: false } });
  return { record: result && (result as { id?: string }).id === id ? result : undefined, pending: query.isPending, failed: query.isError };
}

function PhoneNumberRef({ id }: { id: string }) {
  const { record, pending } = useNamed<{ id: string; name?: string | null; number?: string | null }>("phonenumber", id);
  if (!record) return pending ? <Skeleton.Input active size="small" /> : <Typography.Text code>{text.removed(id)}</Typography.Text>;
  const number = record.number ? formatPhoneNumber(record.number) : "";
  const name = [record.name, number].filter(Boolean).join(" · ") || id;
  return (
    <Link to="/phone-numbers" aria-label={text.openNumbers(name)}>
      {name}
    </Link>
  );
}

function CampaignRef({ id }: { id: string }) {
  const { record, pending } = useNamed<{ id: string; name: string }>("campaign", id);
  if (!record) return pending ? <Skeleton.Input active size="small" /> : <Typography.Text code>{text.removed(id)}</Typography.Text>;
  return (
    <Link to={`/campaigns/${encodeURIComponent(id)}/calls`} aria-label={text.openCampaign(record.name)}>
      {record.name}
    </Link>
  );
}

/** GET /call/{id}: the call and the appointments it booked (absent from an older server's answer). */
type CallWithAppointments = Call & { appointment_ids?: string[] };

function CallDetail({ call }: { call: CallWithAppointments }) {
  const rubricOf = useAgentRubrics();
  const appointmentIds = call.appointment_ids ?? [];
  return (
    <>
      <Section title={text.recording}>
        {call.recording_url ? <Recording label={text.recording} url={call.recording_url} /> : <Typography.Text type="secondary">{text.noRecording}</Typography.Text>}
        {call.stereo_recording_url && <Recording label={text.stereoRecording} url={call.stereo_recording_url} />}
      </Section>
      <Section title={text.summary}>
        <Typography.Paragraph className="call-detail__summary">{call.summary || text.noSummary}</Typography.Paragraph>
      </Section>
      {appointmentIds.length > 0 && (
        <Section title={callAppointmentsText.title}>
          <CallAppointments ids={appointmentIds} />
        </Section>
      )}
      <Section title={text.successEvaluation}>
        <SuccessEvaluation value={call.success_evaluation} rubric={rubricOf(call.agent_id)} success={call.success} full />
      </Section>
      <Section title={text.transcript}>
        <CallTranscript messages={call.messages ?? []} transcript={call.transcript} />
      </Section>
      <Section title={text.structuredData}>
        <KeyValueList value={call.structured_data} empty={text.noStructuredData} />
      </Section>
      <Section title={text.costBreakdown}>
        <KeyValueList
          value={call.cost_breakdown}
          empty={text.noCostBreakdown}
          format={(value) => (typeof value === "number" ? formatCost(value) : String(value ?? "—"))}
        />
      </Section>
      <Section title={text.metadata}>
        <Descriptions
          size="small"
          column={1}
          items={[
            { key: "agent", label: columns.agent, children: call.agent_name ?? "—" },
            { key: "customer", label: columns.customer, children: [call.customer_name, call.customer_number].filter(Boolean).join(" · ") || "—" },
            { key: "type", label: columns.type, children: call.type },
            { key: "status", label: columns.status, children: call.status },
            { key: "started", label: columns.started, children: formatDateTime(call.started_at) },
            { key: "ended", label: text.endedAt, children: formatDateTime(call.ended_at) },
            { key: "duration", label: columns.duration, children: formatDuration(call.duration_seconds) },
            { key: "cost", label: columns.cost, children: formatCost(call.cost) },
            { key: "reason", label: columns.endedReason, children: call.ended_reason ?? "—" },
            { key: "number", label: text.phoneNumber, children: call.phone_number_id ? <PhoneNumberRef id={call.phone_number_id} /> : "—" },
            { key: "campaign", label: text.campaign, children: call.campaign_id ? <CampaignRef id={call.campaign_id} /> : "—" },
            { key: "provider", label: text.providerCallId, children: call.provider_call_id ?? "—" },
          ]}
        />
      </Section>
    </>
  );
}

/** One call (GET /call/{id}) in a drawer; the page keeps its id in the URL (?call=) so the view can be linked. */
export function CallDetailDrawer({ callId, onClose }: { callId: string | undefined; onClose: () => void }) {
  const { result, query } = useOne<CallWithAppointments>({
    resource: "call",
    id: callId ?? "",
    queryOptions: { enabled: Boolean(callId) },
    errorNotification: false,
  });
  const call = callId && result?.id === callId ? result : undefined;

  let body;
  if (query.isError) body = <Alert type="error" showIcon message={text.failed} description={query.error?.message} />;
  else if (!call)
    body = (
      <div role="status" aria-label={text.loading}>
        <Skeleton active />
      </div>
    );
  else body = <CallDetail call={call} />;

  return (
    <Drawer
      open={Boolean(callId)}
      onClose={onClose}
      width={640}
      destroyOnHidden
      title={
        <Flex vertical gap={4}>
          <Flex gap={8} align="center">
            {text.title}
            {call?.is_sandbox && <Tag color="purple">{SANDBOX_CALL_LABEL}</Tag>}
          </Flex>
          {callId && <CopyCallId id={callId} />}
        </Flex>
      }
    >
      {body}
    </Drawer>
  );
}
