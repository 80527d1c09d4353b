import { DatePicker } from "antd";
import dayjs, { type Dayjs } from "dayjs";
import { DASHBOARD_MAX_DAYS } from "../../../contract/dashboard-paths";
import { strings } from "../../config/strings";

const text = strings.dashboard;
const DAY = "YYYY-MM-DD";

/**
 * The custom period's days: at most DASHBOARD_MAX_DAYS, none after today in the organisation's zone.
 * Its own module, imported only once "Custom range" is chosen: the date picker weighs about 30 KB
 * (gzip) that the landing page does not need.
 */
export default function CustomRangePicker({
  startDate,
  endDate,
  today,
  onChange,
}: {
  startDate: string;
  endDate: string;
  today: string | undefined;
  onChange: (range: { startDate: string; endDate: string }) => void;
}) {
  const disabledDate = (day: Dayjs, info?: { from?: Dayjs }) =>
    (today !== undefined && day.format(DAY) > today) || (info?.from !== undefined && Math.abs(day.diff(info.from, "day")) >= DASHBOARD_MAX_DAYS);
  return (
    <DatePicker.RangePicker
      aria-label={text.customRange}
      className="dashboard__filter dashboard__filter--dates"
      placeholder={[text.from, text.to]}
      allowClear={false}
      value={[dayjs(startDate), dayjs(endDate)]}
      disabledDate={disabledDate}
      onChange={(range) => {
        const [start, end] = range ?? [];
        if (start && end) onChange({ startDate: start.format(DAY), endDate: end.format(DAY) });
      }}
    />
  );
}
