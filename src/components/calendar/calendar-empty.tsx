import { Button, Typography } from "antd";
import { Link } from "react-router";
import { AGENTS_ENTRY_PATH } from "../../config/resources";
import { calendarText } from "./strings";

const text = calendarText.empty;

/** An organisation without any appointment yet: how agents book, and how a person adds one. */
export function CalendarEmpty({ canCreate, onCreate }: { canCreate: boolean; onCreate: () => void }) {
  return (
    <div className="cal-empty" role="status">
      <Typography.Title level={4} className="cal-empty__title">
        {text.title}
      </Typography.Title>
      <Typography.Paragraph>
        {text.agents} <Link to={AGENTS_ENTRY_PATH}>{text.agentSettings}</Link>
      </Typography.Paragraph>
      {canCreate && (
        <>
          <Typography.Paragraph>{text.people}</Typography.Paragraph>
          <Button type="primary" onClick={onCreate}>
            {calendarText.toolbar.create}
          </Button>
        </>
      )}
    </div>
  );
}
