import { Card } from "antd";
import type { ReactNode } from "react";

/** One group of settings: a card whose id the section links jump to. */
export function FormSection({ id, title, extra, children }: { id: string; title: string; extra?: ReactNode; children: ReactNode }) {
  return (
    <Card id={id} title={<h2 className="agent-section__title">{title}</h2>} extra={extra} className="agent-section">
      {children}
    </Card>
  );
}
