import type { ReactNode } from "react";

/** A centred message with an optional action, for states that replace a whole area (boot failure…). */
export function StatusMessage({ title, detail, action }: { title: string; detail?: string; action?: ReactNode }) {
  return (
    <div className="status-message" role="alert">
      <h1>{title}</h1>
      {detail && <p>{detail}</p>}
      {action}
    </div>
  );
}
