import { Button, Modal } from "antd";
import { SlotTakenAlert } from "./slot-taken";
import { calendarText } from "./strings";
import type { RefusedMove } from "./use-reschedule";

const text = calendarText.slotTaken;

/** A refused move: the server's sentence and the nearest free times, each a button that moves the appointment there. */
export default function SlotTakenDialog({
  refused,
  zone,
  busy,
  onMove,
  onClose,
}: {
  refused: RefusedMove | null;
  zone: string;
  busy: boolean;
  onMove: (refused: RefusedMove, start: string, end: string) => void;
  onClose: () => void;
}) {
  return (
    <Modal
      open={refused !== null}
      title={text.title}
      onCancel={onClose}
      footer={
        <Button onClick={onClose} disabled={busy}>
          {text.keep}
        </Button>
      }
      destroyOnHidden
    >
      {refused && <SlotTakenAlert taken={refused.taken} zone={zone} busy={busy} actionLabel={text.moveTo} onPick={(slot) => onMove(refused, slot.start, slot.end)} />}
    </Modal>
  );
}
