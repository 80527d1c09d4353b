import { Alert, Button, Flex, Typography } from "antd";
import type { Slot } from "../../../contract/calendar";
import { SLOT_TAKEN_CODE } from "../../../contract/calendar-shared";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { formatRange } from "./calendar-time";
import { calendarText } from "./strings";

const text = calendarText.slotTaken;

/** A refusal because the time overlaps another appointment (409 slot_taken), with the nearest free times it offered. */
export interface SlotTaken {
  detail: string;
  slots: Slot[];
}

const isSlot = (value: unknown): value is Slot =>
  typeof value === "object" && value !== null && typeof (value as Slot).start === "string" && typeof (value as Slot).end === "string";

/** The 409 slot_taken in an error, else null (any other error is the caller's to show). */
export function slotTakenOf(error: unknown): SlotTaken | null {
  const apiError = error as ApiError | undefined;
  if (apiError?.statusCode !== 409 || apiError.code !== SLOT_TAKEN_CODE) return null;
  return { detail: apiError.message, slots: (apiError.slots ?? []).filter(isSlot) };
}

/**
 * The server's sentence and the free times it offered, each a button that takes it (`actionLabel` says
 * what clicking does: move there, or book there).
 */
export function SlotTakenAlert({
  taken,
  zone,
  actionLabel,
  onPick,
  busy,
  extra,
}: {
  taken: SlotTaken;
  zone: string;
  actionLabel: (slot: string) => string;
  onPick: (slot: Slot) => void;
  busy?: boolean;
  extra?: React.ReactNode;
}) {
  return (
    <Alert
      type="warning"
      showIcon
      role="alert"
      message={taken.detail}
      description={
        <Flex vertical gap={8}>
          {taken.slots.length > 0 ? (
            <>
              <Typography.Text strong>{text.offered}</Typography.Text>
              <Flex wrap gap={8}>
                {taken.slots.map((slot) => {
                  const label = formatRange(slot.start, slot.end, zone);
                  return (
                    <Button key={slot.start} size="small" disabled={busy} onClick={() => onPick(slot)}>
                      {actionLabel(label)}
                    </Button>
                  );
                })}
              </Flex>
            </>
          ) : (
            <span>{text.none}</span>
          )}
          {extra}
        </Flex>
      }
    />
  );
}
