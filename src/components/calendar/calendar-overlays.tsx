import { Suspense } from "react";
import { lazyRetry } from "../../lib/lazy-retry";
import type { Agent } from "../../../contract/agent";
import type { Appointment } from "../../../contract/calendar";
import type { AppointmentDraft } from "./appointment-create-drawer";
import type { useReschedule } from "./use-reschedule";

// Each loads when first opened: the calendar paints without their date pickers, phone field and forms.
const AppointmentDrawer = lazyRetry(() => import("./appointment-drawer").then((module) => ({ default: module.AppointmentDrawer })));
const AppointmentCreateDrawer = lazyRetry(() => import("./appointment-create-drawer").then((module) => ({ default: module.AppointmentCreateDrawer })));
const AvailabilityDrawer = lazyRetry(() => import("./availability-drawer").then((module) => ({ default: module.AvailabilityDrawer })));
const SlotTakenDialog = lazyRetry(() => import("./slot-taken-dialog"));

/**
 * What opens over the calendar: an appointment (`appointmentId`), a new one (`draft`), a refused move
 * (`reschedule.refused`) and the availability settings (`availability`: the calendar whose rules). Each
 * is mounted only while open.
 */
export function CalendarOverlays({
  zone,
  agents,
  permissions,
  appointmentId,
  draft,
  availability,
  reschedule,
  onCloseAppointment,
  onCloseDraft,
  onCreated,
  onChanged,
  onAvailabilityTarget,
  onCloseAvailability,
  onAvailabilitySaved,
}: {
  zone: string | undefined;
  agents: Agent[];
  permissions: { canEdit: boolean; canCancel: boolean; canEditAvailability: boolean };
  appointmentId: string | undefined;
  draft: AppointmentDraft | null;
  availability: string | undefined;
  reschedule: ReturnType<typeof useReschedule>;
  onCloseAppointment: () => void;
  onCloseDraft: () => void;
  onCreated: (appointment: Appointment) => void;
  onChanged: () => void;
  onAvailabilityTarget: (target: string) => void;
  onCloseAvailability: () => void;
  onAvailabilitySaved: () => void;
}) {
  return (
    <Suspense fallback={null}>
      {zone && appointmentId && (
        <AppointmentDrawer
          id={appointmentId}
          zone={zone}
          canEdit={permissions.canEdit}
          canCancel={permissions.canCancel}
          onClose={onCloseAppointment}
          onMove={(appointment, start, end) => reschedule.move(appointment, start, end)}
          onChanged={onChanged}
        />
      )}
      {zone && draft && <AppointmentCreateDrawer draft={draft} zone={zone} agents={agents} onClose={onCloseDraft} onCreated={onCreated} />}
      {zone && reschedule.refused && (
        <SlotTakenDialog
          refused={reschedule.refused}
          zone={zone}
          busy={reschedule.isPending}
          onMove={(refused, start, end) => void reschedule.move(refused.appointment, start, end)}
          onClose={reschedule.dismiss}
        />
      )}
      {availability && (
        <AvailabilityDrawer
          target={availability}
          agents={agents}
          canEdit={permissions.canEditAvailability}
          onTarget={onAvailabilityTarget}
          onClose={onCloseAvailability}
          onSaved={onAvailabilitySaved}
        />
      )}
    </Suspense>
  );
}
