/**
 * In-process nudges between the campaign API and the dialler: "campaign X changed" (started, resumed,
 * edited, contacts added) and "a campaign call ended". The dialler listens and looks for work at once
 * instead of waiting for its next interval. Only a shortcut: every process also polls
 * (DIALLER_INTERVAL_MS), so a change made in another process is seen on its next tick.
 */
import { EventEmitter } from "node:events";

export interface CampaignSignals {
  /** A campaign's state, settings or contacts changed. */
  changed(campaignId: string): void;
  onChanged(listener: (campaignId: string) => void): () => void;
}

export function createCampaignSignals(): CampaignSignals {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    changed: (campaignId) => {
      emitter.emit("changed", campaignId);
    },
    onChanged(listener) {
      emitter.on("changed", listener);
      return () => emitter.off("changed", listener);
    },
  };
}
