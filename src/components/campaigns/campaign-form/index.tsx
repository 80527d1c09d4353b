import { useCreate, useInvalidate, useUpdate } from "@refinedev/core";
import { Alert, Button, Form, Steps } from "antd";
import { useRef, useState } from "react";
import { useNavigate } from "react-router";
import type { Campaign } from "../../../../contract/campaign";
import { strings } from "../../../config/strings";
import { useToasts } from "../../../lib/toast";
import type { ApiError } from "../../../providers/data/fetch-wrapper";
import { useCampaignActions } from "../use-campaign-actions";
import { useCampaignPermissions } from "../use-campaign-permissions";
import { BasicsStep } from "./basics-step";
import { CallingStep } from "./calling-step";
import { ContactsStep, type LeaveContacts } from "./contacts-step";
import { editableFor } from "./editable";
import { createBody, formValuesOf, STEPS, updateBody, type CampaignFormValues, type StepKey } from "./form-values";
import { missingToStart, ReviewStep } from "./review-step";
import { ScheduleStep } from "./schedule-step";

const text = strings.campaigns.form;

/** What the campaign's state means for editing it: live edits, pause first, or the name only. */
function StateNotice({ campaign, onPause, pausing, canPause }: { campaign: Campaign; onPause: () => void; pausing: boolean; canPause: boolean }) {
  const pause = canPause && (
    <Button size="small" onClick={onPause} loading={pausing}>
      {text.pause}
    </Button>
  );
  // The button under the text, not beside it: beside it squeezes the text to a column on a phone.
  const body = (sentence: string) => (
    <>
      {sentence}
      {pause && <div style={{ marginTop: 8 }}>{pause}</div>}
    </>
  );
  if (campaign.status === "running") return <Alert type="warning" showIcon style={{ marginBottom: 16 }} message={text.liveTitle} description={body(text.liveBody)} />;
  if (campaign.status === "scheduled") return <Alert type="info" showIcon style={{ marginBottom: 16 }} message={text.scheduledTitle} description={body(text.scheduledBody)} />;
  if (campaign.status === "completed" || campaign.status === "cancelled")
    return <Alert type="info" showIcon style={{ marginBottom: 16 }} message={text.finishedTitle(strings.campaigns.statuses[campaign.status])} description={text.finishedBody} />;
  return null;
}

/**
 * The campaign's step form: basics, contacts, schedule, calling, review. A new campaign shows the
 * first step only: "Next" posts the draft (POST /campaign/) and `onCreated` takes it on to its edit
 * page, where contacts can be imported into it. Saving sends what changed among the fields the
 * state lets change; "Save and start" then starts the draft.
 */
export function CampaignForm({ campaign, step, onStep, onCreated }: { campaign?: Campaign; step: StepKey; onStep: (step: StepKey) => void; onCreated?: (campaign: Campaign) => void }) {
  const [form] = Form.useForm<CampaignFormValues>();
  // The values the form opens with; the page mounts a new form per campaign (key), so later answers
  // for the same campaign (after a pause, an import) do not overwrite what the person typed.
  const [initialValues] = useState(() => formValuesOf(campaign));
  const navigate = useNavigate();
  const toasts = useToasts();
  const invalidate = useInvalidate();
  const permissions = useCampaignPermissions();
  const actions = useCampaignActions();
  const { mutateAsync: create } = useCreate<Campaign, ApiError>();
  const { mutateAsync: update } = useUpdate<Campaign, ApiError>();
  const [busy, setBusy] = useState<"next" | "draft" | "start" | "changes" | null>(null);
  const [error, setError] = useState<{ title: string; detail?: string } | null>(null);
  const editable = editableFor(campaign, campaign ? permissions.canEdit : permissions.canCreate);
  const index = STEPS.indexOf(step);
  const isLast = index === STEPS.length - 1;

  /** The current step's fields are checked (the others were when they were left). */
  const validStep = async () => {
    try {
      await form.validateFields();
      return true;
    } catch {
      return false;
    }
  };

  const values = () => form.getFieldsValue(true) as CampaignFormValues;

  // Every way out of the Contacts step (Next, Back, the stepper, Save) first settles a previewed file
  // that is not imported yet: import, discard or stay (contacts-step.tsx, LeaveContacts).
  const leaveContacts = useRef<LeaveContacts | null>(null);
  // Synchronous when nothing is pending, so a click moves the step in the same task as before.
  const mayLeave = (): boolean | Promise<boolean> => step !== "contacts" || (leaveContacts.current?.() ?? true);

  const go = async (next: StepKey) => {
    if (next === step) return;
    if (STEPS.indexOf(next) > index && !(await validStep())) return;
    const may = mayLeave();
    if (may !== true && !(await may)) return;
    setError(null);
    onStep(next);
  };

  const createDraft = async () => {
    if (!(await validStep())) return;
    setBusy("next");
    setError(null);
    try {
      const { data } = await create({ resource: "campaign", values: createBody(values()), successNotification: false, errorNotification: false });
      toasts.notice(text.created);
      onCreated?.(data);
    } catch (caught) {
      setError({ title: text.createFailed, detail: (caught as ApiError | undefined)?.message });
    } finally {
      setBusy(null);
    }
  };

  const save = async (kind: "draft" | "start" | "changes") => {
    if (!campaign || !(await validStep()) || !(await mayLeave())) return;
    setBusy(kind);
    setError(null);
    const body = updateBody(values(), campaign);
    const changed = Object.keys(body).length > 0;
    try {
      if (changed) await update({ resource: "campaign", id: campaign.id, values: body, successNotification: false, errorNotification: false });
    } catch (caught) {
      setError({ title: text.saveFailed, detail: (caught as ApiError | undefined)?.message });
      setBusy(null);
      return;
    }
    if (kind === "start") {
      const started = await actions.transition(campaign, "start");
      setBusy(null);
      if (started) navigate(`/campaigns/${encodeURIComponent(campaign.id)}/calls`);
      return;
    }
    setBusy(null);
    if (kind === "changes" && !changed) {
      toasts.notice(text.noChanges);
      return;
    }
    toasts.success(kind === "draft" ? text.draftSaved : text.saved);
    navigate(kind === "draft" ? "/campaigns" : `/campaigns/${encodeURIComponent(campaign.id)}/calls`);
  };

  const draft = campaign?.status === "draft";
  const canSave = campaign !== undefined && permissions.canEdit;
  const agentId = Form.useWatch("agent_id", { form, preserve: true }) as string | null | undefined;
  const numberId = Form.useWatch("phone_number_id", { form, preserve: true }) as string | null | undefined;
  const missing = campaign && draft ? missingToStart({ agent_id: agentId, phone_number_id: numberId }, campaign) : [];

  let body;
  if (step === "basics" || !campaign) body = <BasicsStep editable={editable} />;
  else if (step === "contacts") body = <ContactsStep campaign={campaign} leaveGuard={leaveContacts} onImported={() => void invalidate({ resource: "campaign", invalidates: ["detail", "list"], id: campaign.id })} />;
  else if (step === "schedule") body = <ScheduleStep editable={editable} />;
  else if (step === "calling") body = <CallingStep editable={editable} concurrencyLimit={campaign.concurrency_limit} />;
  else body = <ReviewStep campaign={campaign} />;

  return (
    <div className="campaign-form">
      <Steps
        className="campaign-form__steps"
        size="small"
        current={index}
        onChange={(next) => void go(STEPS[next]!)}
        items={STEPS.map((key) => ({ key, title: text.steps[key], disabled: !campaign && key !== "basics" }))}
      />
      {campaign && (
        <StateNotice
          campaign={campaign}
          canPause={permissions.canEdit}
          pausing={actions.isPending(campaign, "pause")}
          onPause={() => void actions.transition(campaign, "pause")}
        />
      )}
      {error && <Alert type="error" showIcon role="alert" style={{ marginBottom: 16 }} message={error.title} description={error.detail} closable onClose={() => setError(null)} />}
      <Form form={form} layout="vertical" initialValues={initialValues} requiredMark onFinish={() => undefined}>
        {body}
      </Form>
      <div className="campaign-form__footer">
        {index > 0 ? <Button onClick={() => void go(STEPS[index - 1]!)}>{text.back}</Button> : <span />}
        <div className="campaign-form__footer-end">
          {!campaign && (
            <Button type="primary" loading={busy === "next"} onClick={() => void createDraft()}>
              {busy === "next" ? text.creating : text.next}
            </Button>
          )}
          {canSave && (
            <Button type={isLast && !draft ? "primary" : "default"} loading={busy === "draft" || busy === "changes"} onClick={() => void save(draft ? "draft" : "changes")}>
              {draft ? text.saveDraft : text.saveChanges}
            </Button>
          )}
          {campaign && !isLast && (
            <Button type="primary" onClick={() => void go(STEPS[index + 1]!)}>
              {text.next}
            </Button>
          )}
          {canSave && isLast && draft && (
            <Button type="primary" loading={busy === "start"} disabled={missing.length > 0} title={missing.length ? `${text.missingToStart} ${missing.join(", ")}` : undefined} onClick={() => void save("start")}>
              {text.saveAndStart}
            </Button>
          )}
        </div>
      </div>
    </div>
  );
}
