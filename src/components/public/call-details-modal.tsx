/**
 * 'Confirm Call Details' (spec §2, §4, §5, §8): a required recipient name and phone number, Cancel and
 * Start Call. Start Call is disabled while busy, while the name is blank and while the phone is empty;
 * it reads 'Calling...' while the call is placed. Success closes the modal with 'Agent is Calling'.
 */
import { useId, useRef, useState, type FormEvent } from "react";
import { strings } from "../../config/strings";
import { Modal } from "./modal";
import { PhoneField, type PhoneValue } from "./phone-field";
import { PublicButton } from "./public-button";
import {
  buildPublicCallPayload,
  publicCallFailureMessage,
  publicCallValidationError,
  type PhoneNumberConfig,
} from "./public-agent-logic";
import { postPublicCall } from "./public-api";
import { useToast } from "./toast";

const t = strings.publicAgent;
/** The server keeps at most 40 characters of a recipient name (contract/call.ts CUSTOMER_NAME_MAX_LENGTH). */
export const RECIPIENT_NAME_MAX_LENGTH = 40;

export function CallDetailsModal({
  agentId,
  phoneNumberConfig,
  onClose,
}: {
  agentId: string;
  phoneNumberConfig: PhoneNumberConfig | null;
  onClose: () => void;
}) {
  const toast = useToast();
  const nameId = useId();
  const phoneId = useId();
  const [name, setName] = useState("");
  const [phone, setPhone] = useState<PhoneValue | null>(null);
  const [touched, setTouched] = useState({ name: false, phone: false });
  // The modal focuses the name itself, and focus can leave without the visitor (another window; React's
  // StrictMode re-running the focus effect in development): leaving the name counts only once the visitor
  // pressed, typed or tabbed in it. No message before any input.
  const nameUsed = useRef(false);
  const markNameUsed = () => {
    nameUsed.current = true;
  };
  const [busy, setBusy] = useState(false);

  const phoneEmpty = phone?.empty ?? true;
  const nameBlank = name.trim() === "";
  const nameError = touched.name && nameBlank ? t.nameRequired : null;
  const phoneError = touched.phone && phoneEmpty ? t.phoneRequired : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setTouched({ name: true, phone: true });
    const invalid = publicCallValidationError({ recipientName: name, phoneEmpty, phoneNumberConfig });
    if (invalid) {
      // Field messages show under their fields; a missing configuration is not the visitor's field.
      if (invalid === t.phoneConfigMissing) toast.show("error", invalid);
      return;
    }
    setBusy(true);
    try {
      await postPublicCall(
        buildPublicCallPayload({
          agentId,
          recipientName: name,
          phone: phone?.phone ?? "",
          phoneNumberId: phoneNumberConfig!.id,
        }),
      );
      toast.show("success", t.called);
      setBusy(false);
      onClose();
    } catch (error) {
      toast.show("error", publicCallFailureMessage(error));
      setBusy(false);
    }
  };

  return (
    <Modal title={t.modalTitle} open onClose={onClose} locked={busy}>
      <form className="pub-form" onSubmit={submit} noValidate aria-label={t.modalTitle}>
        <p className="pub-form__intro">{t.modalIntro}</p>
        <div className="pub-field">
          <label className="pub-field__label pub-field__label--required" htmlFor={nameId}>
            {t.recipientName}
          </label>
          <input
            id={nameId}
            className={`pub-input${nameError ? " pub-input--invalid" : ""}`}
            type="text"
            autoComplete="name"
            maxLength={RECIPIENT_NAME_MAX_LENGTH}
            placeholder={t.recipientNamePlaceholder}
            value={name}
            disabled={busy}
            required
            aria-required="true"
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? `${nameId}-error` : undefined}
            onPointerDown={markNameUsed}
            onKeyDown={markNameUsed}
            onKeyUp={markNameUsed}
            onChange={(event) => {
              markNameUsed();
              setName(event.target.value);
            }}
            onBlur={() => {
              if (nameUsed.current) setTouched((current) => ({ ...current, name: true }));
            }}
          />
          {nameError && (
            <p id={`${nameId}-error`} className="pub-field__error" role="alert">
              {nameError}
            </p>
          )}
        </div>
        <div className="pub-field">
          <label className="pub-field__label pub-field__label--required" htmlFor={phoneId}>
            {t.phoneNumber}
          </label>
          <PhoneField
            id={phoneId}
            disabled={busy}
            invalid={!!phoneError}
            describedBy={phoneError ? `${phoneId}-error` : undefined}
            onChange={(value) => {
              setPhone(value);
              if (value.empty && !phoneEmpty) setTouched((current) => ({ ...current, phone: true }));
            }}
            onBlur={() => setTouched((current) => ({ ...current, phone: true }))}
          />
          {phoneError && (
            <p id={`${phoneId}-error`} className="pub-field__error" role="alert">
              {phoneError}
            </p>
          )}
        </div>
        <div className="pub-modal__footer">
          <PublicButton variant="default" onClick={onClose} disabled={busy}>
            {t.cancel}
          </PublicButton>
          <PublicButton type="submit" busy={busy} disabled={nameBlank || phoneEmpty}>
            {busy ? t.calling : t.startCall}
          </PublicButton>
        </div>
      </form>
    </Modal>
  );
}
