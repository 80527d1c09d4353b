import { Button, Modal } from "antd";
import { useCallback, useState } from "react";
import type { Appointment, Slot } from "../../../contract/calendar";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatRange } from "./calendar-time";
import { SlotTakenAlert, slotTakenOf, type SlotTaken } from "./slot-taken";
import { calendarText } from "./strings";
import { useAppointmentWrites } from "./use-calendar-data";

const text = calendarText.drawer;

/**
 * Moving an appointment (PUT /appointment/{id} {start, end}), from a drag, a resize or the drawer's
 * form. The server keeps the overlap rule: when the new time is taken the calendar puts the appointment
 * back (`revert`) and a dialog gives the server's sentence and the nearest free times, each a button
 * that moves it there.
 */
export function useReschedule(zone: string, onMoved: () => void) {
  const writes = useAppointmentWrites();
  const toasts = useToasts();
  const [refused, setRefused] = useState<{ appointment: Appointment; taken: SlotTaken } | null>(null);

  const move = useCallback(
    async (appointment: Appointment, start: string, end: string, revert?: () => void): Promise<boolean> => {
      try {
        await writes.update(appointment.id, { start, end });
        setRefused(null);
        toasts.success(text.moved(formatRange(start, end, zone)));
        onMoved();
        return true;
      } catch (error) {
        revert?.();
        const taken = slotTakenOf(error);
        if (taken) setRefused({ appointment, taken });
        else toasts.error(text.moveFailed, (error as ApiError | undefined)?.message);
        return false;
      }
    },
    [writes, toasts, zone, onMoved],
  );

  const dialog = (
    <Modal
      open={refused !== null}
      title={calendarText.slotTaken.title}
      onCancel={() => setRefused(null)}
      footer={
        <Button onClick={() => setRefused(null)} disabled={writes.isPending}>
          {calendarText.slotTaken.keep}
        </Button>
      }
      destroyOnHidden
    >
      {refused && (
        <SlotTakenAlert
          taken={refused.taken}
          zone={zone}
          busy={writes.isPending}
          actionLabel={calendarText.slotTaken.moveTo}
          onPick={(slot: Slot) => void move(refused.appointment, slot.start, slot.end)}
        />
      )}
    </Modal>
  );

  return { move, dialog, isPending: writes.isPending };
}
