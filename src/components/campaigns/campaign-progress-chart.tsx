/**
 * Calls placed and answered per time bucket (GET /campaign/{id}/progress), as bars. visx, like the
 * dashboard's charts, and imported lazily by the calls page alone, so it shares their chunk of visx.
 */
import { AxisBottom, AxisLeft } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { Bar } from "@visx/shape";
import { theme } from "antd";
import { useLayoutEffect, useRef, useState } from "react";
import { strings } from "../../config/strings";
import { wholeTicks } from "../../lib/chart-ticks";
import { formatCount } from "./campaign-format";
import type { CampaignProgressSeries } from "./use-campaign-detail";

const text = strings.campaigns.detail;
const HEIGHT = 200;
const MARGIN = { top: 8, right: 12, bottom: 28, left: 40 };
const FALLBACK_WIDTH = 640;

function bucketLabel(at: string, bucketSeconds: number): string {
  const options: Intl.DateTimeFormatOptions = bucketSeconds < 86_400 ? { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" } : { day: "numeric", month: "short" };
  return new Intl.DateTimeFormat("en-GB", options).format(Date.parse(at));
}

export default function CampaignProgressChart({ progress }: { progress: CampaignProgressSeries }) {
  const { token } = theme.useToken();
  const box = useRef<HTMLDivElement>(null);
  const [measured, setMeasured] = useState(0);
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setMeasured(element.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const width = measured || FALLBACK_WIDTH;
  const points = progress.points;
  const calls = points.reduce((sum, point) => sum + point.calls, 0);
  const answered = points.reduce((sum, point) => sum + point.answered, 0);
  const summary = text.progressSummary(formatCount(calls), formatCount(answered));

  const innerWidth = Math.max(0, width - MARGIN.left - MARGIN.right);
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = scaleBand<string>({ domain: points.map((point) => point.at), range: [0, innerWidth], padding: 0.2 });
  const y = scaleLinear<number>({ domain: [0, Math.max(1, ...points.map((point) => point.calls))], range: [innerHeight, 0], nice: true });
  const room = Math.max(1, Math.floor(innerWidth / 90));
  const step = Math.max(1, Math.ceil(points.length / room));
  const ticks = points.filter((_, index) => index % step === 0).map((point) => point.at);
  const label = { fill: token.colorTextSecondary, fontSize: 11, fontFamily: token.fontFamily };

  return (
    <div ref={box} className="campaign-detail__chart">
      <svg width={width} height={HEIGHT} role="img" aria-label={summary}>
        <Group left={MARGIN.left} top={MARGIN.top}>
          {points.map((point) => {
            const left = x(point.at) ?? 0;
            return (
              <g key={point.at}>
                <title>{`${bucketLabel(point.at, progress.bucket_seconds)}: ${formatCount(point.calls)} ${text.progressCalls.toLowerCase()}, ${formatCount(point.answered)} ${text.progressAnswered.toLowerCase()}`}</title>
                <Bar x={left} y={y(point.calls)} width={x.bandwidth()} height={innerHeight - y(point.calls)} fill={token.colorPrimaryBg} />
                <Bar x={left} y={y(point.answered)} width={x.bandwidth()} height={innerHeight - y(point.answered)} fill={token.colorPrimary} />
              </g>
            );
          })}
          <AxisLeft scale={y} tickValues={wholeTicks(y, 4)} tickFormat={(tick) => formatCount(Number(tick))} stroke={token.colorBorder} tickStroke={token.colorBorder} tickLabelProps={() => ({ ...label, textAnchor: "end", dx: -4, dy: 3 })} />
          <AxisBottom top={innerHeight} scale={x} tickValues={ticks} tickFormat={(at) => bucketLabel(at, progress.bucket_seconds)} stroke={token.colorBorder} tickStroke={token.colorBorder} tickLabelProps={() => ({ ...label, textAnchor: "middle" })} />
        </Group>
      </svg>
      <p className="campaign-chart__legend">
        <span className="campaign-legend__swatch" style={{ background: token.colorPrimaryBg }} aria-hidden /> {text.progressCalls}{" "}
        <span className="campaign-legend__swatch" style={{ background: token.colorPrimary, marginLeft: 12 }} aria-hidden /> {text.progressAnswered}
      </p>
      <p className="campaign-chart__summary">{summary}</p>
    </div>
  );
}
