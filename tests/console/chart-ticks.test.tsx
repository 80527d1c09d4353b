import { render } from "@testing-library/react";
import { scaleLinear } from "@visx/scale";
import { describe, expect, it } from "vitest";
import CampaignProgressChart from "../../src/components/campaigns/campaign-progress-chart";
import { wholeTicks } from "../../src/lib/chart-ticks";

describe("axes that count calls", () => {
  it("tick whole numbers only, however few calls there are", () => {
    expect(wholeTicks(scaleLinear<number>({ domain: [0, 2], nice: true }), 4)).toEqual([0, 1, 2]);
    expect(wholeTicks(scaleLinear<number>({ domain: [0, 1], nice: true }), 4)).toEqual([0, 1]);
    expect(wholeTicks(scaleLinear<number>({ domain: [0, 40], nice: true }), 4)).toEqual([0, 10, 20, 30, 40]);
  });

  it("the campaign's progress chart counts calls without halves", () => {
    const { container } = render(
      <CampaignProgressChart
        progress={{
          bucket_seconds: 3600,
          points: [
            { at: "2026-03-02T09:00:00.000Z", calls: 2, answered: 1, ended: 2 },
            { at: "2026-03-02T10:00:00.000Z", calls: 1, answered: 0, ended: 1 },
          ],
        }}
      />,
    );
    const left = [...container.querySelectorAll(".visx-axis-left .visx-axis-tick text")].map((tick) => tick.textContent);
    expect(left).toEqual(["0", "1", "2"]);
  });
});
