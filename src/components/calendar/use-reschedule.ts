import { useCallback, useState } from "react";
import type { Appointment } from "../../../contract/calendar";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatRange } from "./calendar-time";
import { slotTakenOf, type SlotTaken } from "./slot-taken";
import { calendarText } from "./strings";
import { useAppointmentWrites } from "./use-calendar-data";

const text = calendarText.drawer;

/** A move the server refused because the time is taken: the appointment and what the server offered. */
export interface RefusedMove {
  appointment: Appointment;
  taken: SlotTaken;
}

/**
 * Moving an appointment (PUT /appointment/{id} {start, end}), from a drag, a resize or the drawer's
 * form. The server keeps the overlap rule: when the new time is taken the calendar puts the appointment
 * back (`revert`) and `refused` holds the server's sentence and the nearest free times, for the dialog
 * (slot-taken-dialog.tsx) that offers to move it there.
 */
export function useReschedule(zone: string, onMoved: () => void) {
  const writes = useAppointmentWrites();
  const toasts = useToasts();
  const [refused, setRefused] = useState<RefusedMove | null>(null);

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

  return { move, refused, dismiss: useCallback(() => setRefused(null), []), isPending: writes.isPending };
}
