import { Typography } from "antd";
import { useEffect } from "react";
import { Link } from "react-router";
import { FeedCard } from "../../../components/calendar-permission/feed-card";
import { GoogleCard } from "../../../components/calendar-permission/google-card";
import { calendarPermissionText } from "../../../components/calendar-permission/strings";
import { useCalendarPermissions } from "../../../components/calendar-permission/use-calendar-permission";
import "../../../components/calendar-permission/calendar-permission.css";
import { strings } from "../../../config/strings";

/**
 * /calendar-permission (spec §2, issue 14): outside calendars. Google Calendar through OAuth (this page
 * is also where Google sends the browser back) and the ICS feed any calendar app can subscribe to.
 * Members see both read-only; admins connect, disconnect and manage the feed's address.
 */
export default function CalendarPermissionPage() {
  const { canManage, known } = useCalendarPermissions();

  useEffect(() => {
    document.title = `${strings.screens.calendarPermission} · ${strings.appName}`;
  }, []);

  return (
    <section className="calendar-permission">
      <header className="calendar-permission__header">
        <h1 className="calendar-permission__title">{strings.screens.calendarPermission}</h1>
        <Link to="/calendar">{calendarPermissionText.backToCalendar}</Link>
      </header>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {calendarPermissionText.intro}
      </Typography.Paragraph>
      <GoogleCard canManage={canManage} permissionKnown={known} />
      <FeedCard canManage={canManage} permissionKnown={known} />
    </section>
  );
}
