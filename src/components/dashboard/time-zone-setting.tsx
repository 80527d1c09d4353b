import { useCan } from "@refinedev/core";
import { Select } from "antd";
import { useMemo } from "react";
import { strings } from "../../config/strings";
import { zoneNames } from "../../lib/time-zones";
import { useToasts } from "../../lib/toast";
import type { ApiError } from "../../providers/data/fetch-wrapper";
import { useUpdateTimeZone } from "./use-dashboard";

const text = strings.dashboard;

/**
 * "Times in Europe/Berlin": the zone the dashboard's days are cut in (and the call links pass on).
 * Admins change it here (PATCH /organization/settings), then the figures are asked again; members
 * read it. contract/permissions.ts: organization edit.
 */
export function TimeZoneSetting({ zone, onChanged }: { zone: string; onChanged: () => void }) {
  const { data: permission } = useCan({ resource: "organization", action: "edit" });
  const { update, isPending } = useUpdateTimeZone();
  const toasts = useToasts();
  const options = useMemo(() => zoneNames(zone).map((name) => ({ value: name, label: name })), [zone]);

  if (!permission?.can) return <p className="dashboard__zone">{text.timesIn(zone)}</p>;

  const change = async (next: string) => {
    if (next === zone) return;
    try {
      await update(next);
      toasts.notice(text.timeZoneSaved(next));
      onChanged();
    } catch (error) {
      toasts.error(text.timeZoneFailed, (error as ApiError | undefined)?.message);
    }
  };

  return (
    <div className="dashboard__zone">
      <span aria-hidden>{text.timesInPrefix}</span>
      <Select
        aria-label={text.timeZone}
        className="dashboard__zone-select"
        size="small"
        variant="borderless"
        showSearch
        value={zone}
        options={options}
        loading={isPending}
        disabled={isPending}
        popupMatchSelectWidth={false}
        onChange={(next: string) => void change(next)}
      />
    </div>
  );
}
